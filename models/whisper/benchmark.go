package whisper

// The whisper benchmark's descriptor and driver, as the benchmark
// registry runs them (see package benchmark/spec).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/englishnorm"
	"github.com/mlperf-go/inference/accuracy/wer"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(librispeechData)
}

// descriptor is Whisper large-v3 on LibriSpeech (word error rate) as the
// registry runs it: its own batching SUT over three ONNX sessions.
var descriptor = &spec.Benchmark{
	Name:       benchmarkName,
	Summary:    "Whisper large-v3 speech to text (LibriSpeech dev-clean + dev-other, greedy decoding, word error rate)",
	ConfNames:  []string{benchmarkName},
	CheckerIDs: []string{benchmarkName},
	// The rounds allow Offline only (v5.1 to v6.1, datacenter and edge).
	Scenarios: []loadgen.Scenario{loadgen.Offline},
	Dataset:   "librispeech",
	// The full-size synthetic model is 1.55 billion float32 weights (the
	// two decoder files hold the decoder's twice): about 10 GB.
	Model: spec.Models{
		Default: "synthetic:" + sizeTiny,
		Sizes: []spec.Size{{Name: sizeLargeV3, Summary: "whisper-large-v3's shape: 32 + 32 layers of width 1280, about 10 GB"},
			{Name: sizeTiny, Summary: "2 + 2 layers of width 64, the real vocabulary and input"}},
		Seed:      archSeed,
		BuildSize: sizeTiny,
	},
	Batch: spec.Batches{loadgen.Offline: {CPU: 4, GPU: 16}},
	// Responses are int64 label indices of the transcript (possibly none).
	LogShape:   &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Int64, MinElems: 0, MaxValue: float64(len(wer.Labels))},
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the whisper benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder: the optimum layout's files in
// path's folder, and path itself naming the encoder (a symbolic link to
// encoder_model.onnx when path has another name), so that the folder or
// any of its files is the model.
func (driver) BuildModel(path, size string, seed uint64) error {
	dir := filepath.Dir(path)
	if err := buildDir(dir, size, seed); err != nil {
		return err
	}
	if filepath.Base(path) == encoderFile {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("whisper: %w", err)
	}
	if err := os.Symlink(encoderFile, path); err != nil {
		return fmt.Errorf("whisper: %w", err)
	}
	return nil
}

// Open opens the data set, the model's three sessions and its vocabulary,
// and starts the SUT.
func (driver) Open(ctx context.Context, r *spec.OpenRequest) (inst *spec.Instance, err error) {
	if r.Remote {
		return nil, spec.UsageError("whisper: --backend %s: a served Whisper (vLLM's /v1/audio/transcriptions) is not supported yet; run it locally (cpu, cuda, tensorrt)", r.Backend)
	}
	if r.Cache != "" {
		fmt.Fprintln(r.Stderr, "whisper: --cache is not used: the log-Mel spectrograms are computed in the timed path, as the reference's vLLM does")
	}
	ds, err := openData(r.Data, r.CacheDir, r.Count, r.Stderr)
	if err != nil {
		return nil, err
	}
	files, err := findModelFiles(r.ModelPath)
	if err != nil {
		return nil, err
	}
	var sessions []backend.Session
	closeAll := func() error {
		var first error
		for _, s := range sessions {
			if err := s.Close(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	for _, f := range []string{files.Encoder, files.Decoder, files.DecoderWithPast} {
		s, err := r.Engine.OpenSession(f, nil)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, s)
	}
	m, err := New(sessions[0], sessions[1], sessions[2])
	if err != nil {
		return nil, fmt.Errorf("%w (model %s)", err, r.ModelDesc)
	}
	tok, err := tokenizer.LoadWhisper(files.Dir)
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() != m.Shape().Vocab {
		return nil, fmt.Errorf("whisper: the vocabulary in %s has %d ids, the model's logits %d: they are not the same model's", files.Dir, tok.VocabSize(), m.Shape().Vocab)
	}
	qsl, err := harness.NewQSL(harness.QSLConfig[[]float32]{
		Total:    ds.Len(),
		Load:     func(_ context.Context, i int) ([]float32, error) { return ds.Waveform(i) },
		Progress: r.Progress("loading samples", "clips").Update,
	})
	if err != nil {
		return nil, err
	}
	sut, err := newSUT(ctx, sutConfig{Model: m, Tokenizer: tok, MaxBatch: r.Batch, Workers: r.Workers,
		Waveform: func(i loadgen.SampleIndex) ([]float32, error) {
			w, ok := qsl.Sample(i)
			if !ok {
				return nil, fmt.Errorf("sample %d is not loaded", i)
			}
			return w, nil
		}})
	if err != nil {
		return nil, err
	}
	s := m.Shape()
	return &spec.Instance{
		SUT: sut,
		QSL: qsl,
		Describe: fmt.Sprintf("whisper: %s %s, model %s (%d+%d layers, width %d, vocabulary %d), %s backend, batch %d, %d worker(s), %d clips (%.2f hours) in %s",
			r.Scenario, r.Mode, r.Model, s.Layers, s.Layers, s.Width, s.Vocab, r.Backend, r.Batch, r.Workers, ds.Len(), ds.Duration/3600, ds.Manifest),
		Close: func() error {
			err := sut.Close()
			if cerr := closeAll(); err == nil {
				err = cerr
			}
			return err
		},
	}, nil
}

// Score is accuracy_eval.py on the log: every entry's labels back to
// text, Whisper's normaliser and the word error rate with concatenation.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	if req.DType != "" && req.DType != string(accuracy.Int64) {
		return nil, spec.UsageError("whisper: --dtype %q: the responses are int64 label indices (accuracy_eval.py's default --output_dtype)", req.DType)
	}
	ds, err := openData(req.Data, req.CacheDir, req.Count, req.Stderr)
	if err != nil {
		return nil, err
	}
	norm, err := englishnorm.New()
	if err != nil {
		return nil, err
	}
	res, err := wer.ScoreLogFile(norm, req.Log, ds.References())
	if err != nil {
		return nil, err
	}
	return &spec.Score{Lines: []string{res.Line()}}, nil
}
