package bert

// The bert benchmark as the framework runs it: its descriptor and driver
// (see package benchmark/spec).

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(squadDataset)
}

// vocabOption is --vocab, shared by run, perf, accuracy and dataset verify.
var vocabOption = spec.Option{Name: "vocab", Default: spec.DepsPath("bert", "vocab.txt"), Deps: "bert/vocab.txt",
	Usage: "uncased WordPiece vocab.txt (the MLPerf one; `make setup` installs it)"}

// descriptor is BERT-large on SQuAD v1.1 (F1) as the registry runs it: a
// tensor model in the generic harness.
var descriptor = &spec.Benchmark{
	Name:       benchmarkName,
	Summary:    "BERT-large question answering (SQuAD v1.1, F1)",
	ConfNames:  []string{benchmarkName},
	CheckerIDs: []string{"bert-99", "bert-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Server, loadgen.Offline},
	Dataset:    "squad",
	Model: spec.Models{
		Default: "synthetic",
		Sizes:   []spec.Size{{Name: sizeFull, Summary: "BERT-large, 334M parameters, 1.34 GB"}, {Name: sizeTiny, Summary: "2 layers of width 64, 8 MB"}},
		Seed:    archSeed,
	},
	// The reference runs every sample alone; batching helps Offline on an
	// accelerator.
	Batch:      spec.Batches{loadgen.Offline: {CPU: 1, GPU: 16}},
	Options:    []spec.Option{vocabOption},
	LogShape:   &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Float32, MinElems: 2 * MaxSeqLength, MaxElems: 2 * MaxSeqLength},
	Compliance: []string{"TEST01"},
	Driver:     driver{},
}

// driver is the bert benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return buildFile(path, size, seed) }

// Open builds the features and opens the model, checked against the
// contract and the vocabulary; the framework warms it up twice.
func (driver) Open(ctx context.Context, r *spec.OpenRequest) (*spec.Instance, error) {
	if r.Cache != "" {
		fmt.Fprintln(r.Stderr, "bert: --cache is not used: the features are built in memory at start-up (about 0.1 s for the dev set)")
	}
	vocab := r.Extra["vocab"]
	start := time.Now()
	sq, path, err := openSQuAD(r.Data, vocab, r.CacheDir, r.Count, r.Stderr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Stderr, "bert: %d features from %d questions of %s in %.2fs\n", len(sq.Features), len(sq.Examples), path, time.Since(start).Seconds())
	qsl, err := newQSL(sq, DataConfig{Progress: r.Progress("loading samples", "features").Update})
	if err != nil {
		return nil, err
	}
	rows, err := ModelVocabSize(r.ModelPath)
	switch {
	case r.Remote:
		// The served model's weights are not here; its contract is
		// checked from the server's metadata below.
	case errors.Is(err, errNoEmbedding):
		fmt.Fprintf(r.Stderr, "bert: %s: no word-embedding table found; the vocabulary size is not checked\n", r.ModelPath)
	case err != nil:
		return nil, err
	default:
		if err := checkVocab(rows, sq.Tokenizer.Vocab()); err != nil {
			return nil, fmt.Errorf("%w (model %s, vocab %s)", err, r.ModelPath, vocab)
		}
	}
	sess, err := r.Engine.OpenSession(r.ModelPath, nil)
	if err != nil {
		return nil, err
	}
	m, err := New(sess, qsl.Sample)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, r.ModelDesc)
	}
	// A model file is taken as BERT-large, the synthetic one as its size.
	arch := fullArch
	if a, err := archFor(r.SyntheticSize); err == nil {
		arch = a
	}
	return &spec.Instance{Model: m, QSL: qsl, Warmups: 2, SampleBytes: arch.SampleWorkingBytes(), Describe: r.Describe(qsl.TotalSampleCount()), Close: sess.Close}, nil
}

// Score is accuracy-squad.py: the logged logits of every feature go
// through the reference's post-processing (n-best 20, max answer length
// 30, get_final_text) and the official SQuAD v1.1 evaluation.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	if req.DType != "" && req.DType != "float32" {
		return nil, spec.UsageError("bert: --dtype %q: the logits are float32", req.DType)
	}
	sq, _, err := openSQuAD(req.Data, req.Extra["vocab"], req.CacheDir, req.Count, req.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreLog(req.Log, sq)
}

// scoreLog scores a BERT accuracy log against sq's features.
func scoreLog(logPath string, sq *SQuAD) (*spec.Score, error) {
	results, err := ReadLog(logPath, len(sq.Features))
	if err != nil {
		return nil, err
	}
	res, err := sq.Score(results)
	if err != nil {
		return nil, err
	}
	return &spec.Score{Lines: []string{res.String()}}, nil
}

// ReadLog reads an accuracy log's responses as logits keyed by QSL index;
// a repeated index keeps the first entry, as accuracy-squad.py's
// deduplication does. samples is the data set's feature count.
func ReadLog(path string, samples int) (map[int]Logits, error) {
	out := map[int]Logits{}
	_, err := accuracy.ReadUnique(path, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(samples) {
			return fmt.Errorf("bert: accuracy log %s: qsl_idx %d, but the data set has %d features (another data set or --count?)", path, e.QSLIdx, samples)
		}
		l, err := DecodeResponse(e.Data)
		if err != nil {
			return fmt.Errorf("bert: accuracy log %s: qsl_idx %d: %w", path, e.QSLIdx, err)
		}
		out[int(e.QSLIdx)] = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Benchmark facts the descriptor needs; accuracy targets and latency
// bounds live in accuracy.Targets and mlperf.conf.
const (
	// benchmarkName is the benchmark's model name in mlperf.conf and user.conf.
	benchmarkName = "bert"
	// performanceSampleCount is the reference QSL's performance sample
	// count on the dev set (all its features; mlperf.conf's override is
	// the same 10833).
	performanceSampleCount = squad.DevFeatures
)
