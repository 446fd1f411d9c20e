package bert

// The bert benchmark's descriptor and the squad data set's commands, as
// the benchmark registry runs them (see package benchmark).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	benchmark.Register(Descriptor)
	benchmark.RegisterDataset(SquadDataset)
}

// vocabOption is --vocab, shared by run, perf, accuracy and dataset verify.
var vocabOption = benchmark.Option{Name: "vocab", Default: benchmark.DepsPath("bert", "vocab.txt"), Deps: "bert/vocab.txt",
	Usage: "uncased WordPiece vocab.txt (the MLPerf one; `make setup` installs it)"}

// Descriptor is BERT-large on SQuAD v1.1 (F1) as the registry runs it: a
// tensor model in the generic harness.
var Descriptor = &benchmark.Benchmark{
	Name:       Name,
	Summary:    "BERT-large question answering (SQuAD v1.1, F1)",
	ConfNames:  []string{Name},
	CheckerIDs: []string{"bert-99", "bert-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.SingleStream, loadgen.Server, loadgen.Offline},
	Dataset:    "squad",
	Model: benchmark.Models{
		Default: "synthetic",
		Sizes:   []benchmark.Size{{Name: SizeFull, Summary: "BERT-large, 334M parameters, 1.34 GB"}, {Name: SizeTiny, Summary: "2 layers of width 64, 8 MB"}},
		Seed:    ArchSeed,
		Build:   BuildFile,
	},
	// The reference runs every sample alone; batching helps Offline on an
	// accelerator.
	DefaultBatch: func(sc loadgen.Scenario, backend string) int {
		if sc == loadgen.Offline && backend != "cpu" {
			return 16
		}
		return 1
	},
	Options:    []benchmark.Option{vocabOption},
	Open:       open,
	Score:      score,
	LogShape:   &accuracy.LogShape{Benchmark: Name, DType: accuracy.Float32, MinElems: 2 * MaxSeqLength, MaxElems: 2 * MaxSeqLength},
	Compliance: []string{"TEST01"},
}

// squadPath resolves --data: a file, a folder holding dev-v1.1.json, or
// synthetic (a small generated file written once into the cache folder).
func squadPath(data, cacheDir string, stderr io.Writer) (string, error) {
	if data == "synthetic" {
		path := filepath.Join(cacheDir, "squad-synthetic-small", squad.DevFileName)
		fmt.Fprintf(stderr, "bert: synthetic SQuAD v1.1 file (generated text, not the dev set) at %s\n", path)
		return SynthDataset(path)
	}
	return benchmark.FileIn(data, squad.DevFileName), nil
}

// openSQuAD resolves the data set and the vocabulary and builds the
// features.
func openSQuAD(data, vocab, cacheDir string, count int, stderr io.Writer) (*SQuAD, string, error) {
	path, err := squadPath(data, cacheDir, stderr)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(vocab); err != nil {
		return nil, "", fmt.Errorf("bert: vocabulary %s not found: run `make setup` (it installs the MLPerf vocab.txt) or give --vocab FILE", vocab)
	}
	sq, err := OpenData(DataConfig{Dataset: path, Vocab: vocab, Count: count})
	return sq, path, err
}

// open builds the features, checks the model against the contract and the
// vocabulary, and warms it up.
func open(ctx context.Context, env *benchmark.Env) (*benchmark.Instance, error) {
	if env.Cache != "" {
		fmt.Fprintln(env.Stderr, "bert: --cache is not used: the features are built in memory at start-up (about 0.1 s for the dev set)")
	}
	vocab := env.Extra["vocab"]
	start := time.Now()
	sq, path, err := openSQuAD(env.Data, vocab, env.CacheDir, env.Count, env.Stderr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stderr, "bert: %d features from %d questions of %s in %.2fs\n", len(sq.Features), len(sq.Examples), path, time.Since(start).Seconds())
	qsl, err := NewQSL(sq, DataConfig{Progress: benchmark.NewProgress(env.Stderr, "loading samples", "features").Update})
	if err != nil {
		return nil, err
	}
	rows, err := ModelVocabSize(env.ModelPath)
	switch {
	case env.Remote():
		// The served model's weights are not here; its contract is
		// checked from the server's metadata below.
	case errors.Is(err, ErrNoEmbedding):
		fmt.Fprintf(env.Stderr, "bert: %s: no word-embedding table found; the vocabulary size is not checked\n", env.ModelPath)
	case err != nil:
		return nil, err
	default:
		if err := CheckVocab(rows, sq.Tokenizer.Vocab()); err != nil {
			return nil, fmt.Errorf("%w (model %s, vocab %s)", err, env.ModelPath, vocab)
		}
	}
	sess, m, err := benchmark.OpenTensorModel(ctx, env, nil, 2, func(s backend.Session) (*Model, error) { return New(s, qsl.Sample) })
	if err != nil {
		return nil, err
	}
	return &benchmark.Instance{
		Model:    m,
		QSL:      qsl,
		Describe: env.Describe(qsl.TotalSampleCount()),
		Score:    func(ctx context.Context, logPath string) (*benchmark.Score, error) { return scoreLog(logPath, sq) },
		Raw:      rawSide(sess, m, qsl, env.Batch, env.Workers),
		Close:    sess.Close,
	}, nil
}

// rawSide is perf's raw measurement: the session's Run, back to back, on
// batches of real features taken in turn from the first up to 8 × batch
// (the harness run sees the same kind of data). The batches are built on
// the first call.
func rawSide(sess backend.Session, m *Model, qsl *harness.QSL[Input], batch, workers int) func(context.Context, time.Duration) (int64, time.Duration, error) {
	var batches [][]backend.Tensor
	var next atomic.Int64
	return func(ctx context.Context, d time.Duration) (int64, time.Duration, error) {
		if batches == nil {
			var err error
			if batches, err = rawBatches(ctx, m, qsl, batch); err != nil {
				return 0, 0, err
			}
		}
		calls, el, err := harness.Measure(ctx, workers, d, func(ctx context.Context) error {
			_, err := sess.Run(ctx, batches[int(next.Add(1)-1)%len(batches)])
			return err
		})
		return calls * int64(batch), el, err
	}
}

func rawBatches(ctx context.Context, m *Model, qsl *harness.QSL[Input], batch int) ([][]backend.Tensor, error) {
	samples, unload, err := benchmark.LoadBatches(ctx, qsl, batch, 8, qsl.Sample)
	if err != nil {
		return nil, err
	}
	defer unload()
	c := m.Contract()
	shape := []int64{int64(batch), MaxSeqLength}
	batches := make([][]backend.Tensor, len(samples))
	for k, b := range samples {
		size := batch * MaxSeqLength
		ids, mask, seg := make([]int64, 0, size), make([]int64, 0, size), make([]int64, 0, size)
		for _, x := range b {
			ids, mask, seg = append(ids, x.IDs...), append(mask, x.Mask...), append(seg, x.Segments...)
		}
		batches[k] = []backend.Tensor{
			{Name: c.IDs, DType: backend.Int64, Shape: shape, Data: ids},
			{Name: c.Mask, DType: backend.Int64, Shape: shape, Data: mask},
			{Name: c.Segments, DType: backend.Int64, Shape: shape, Data: seg},
		}
	}
	return batches, nil
}

// score is accuracy-squad.py: the logged logits of every feature go
// through the reference's post-processing (n-best 20, max answer length
// 30, get_final_text) and the official SQuAD v1.1 evaluation.
func score(ctx context.Context, req *benchmark.ScoreRequest) (*benchmark.Score, error) {
	if req.DType != "" && req.DType != "float32" {
		return nil, benchmark.UsageError("bert: --dtype %q: the logits are float32", req.DType)
	}
	sq, _, err := openSQuAD(req.Data, req.Extra["vocab"], req.CacheDir, req.Count, req.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreLog(req.Log, sq)
}

// scoreLog scores a BERT accuracy log against sq's features.
func scoreLog(logPath string, sq *SQuAD) (*benchmark.Score, error) {
	results, err := ReadLog(logPath, len(sq.Features))
	if err != nil {
		return nil, err
	}
	res, err := sq.Score(results)
	if err != nil {
		return nil, err
	}
	return &benchmark.Score{Lines: []string{res.String()}}, nil
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

// SquadDataset is SQuAD v1.1's commands: synth and verify.
var SquadDataset = &benchmark.Dataset{
	Name:     "squad",
	DataFile: true,
	DataWant: "the SQuAD v1.1 dev-v1.1.json file or the folder holding it",
	Download: "datasets/squad/download_dataset.sh",
	Summary:  "SQuAD v1.1 dev set (dev-v1.1.json)",
	Synth:    synthSquad,
	Verify:   verifySquad,
	Options: []benchmark.Option{
		{Name: "size", Default: "small", Usage: "synth: small (12 questions over 4 long paragraphs) or dev (the shape of dev-v1.1.json: 10570 questions, 2067 paragraphs)"},
		{Name: "official", Bool: true, Usage: "verify: fail unless the file is the official dev-v1.1.json (by MD5)"},
		{Name: "features", Bool: true, Usage: "verify: also build the BERT features (max_seq_length 384, doc_stride 128) and report their count"},
		vocabOption,
	},
}

func synthSquad(req *benchmark.DatasetRequest) error {
	var cfg squad.SynthConfig
	switch req.Extra["size"] {
	case "small":
		cfg = squad.SmallSynth
	case "dev":
		cfg = squad.DevSizedSynth
	default:
		return benchmark.UsageError("squad: --size %q: want small or dev", req.Extra["size"])
	}
	if req.Seed != 0 {
		cfg.Seed = req.Seed
	}
	ds, err := squad.Synth(cfg)
	if err != nil {
		return err
	}
	path := benchmark.FileIn(req.Out, squad.DevFileName)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("squad: %w", err)
	}
	if err := ds.Write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("squad: %w", err)
	}
	fmt.Fprintf(req.Stdout, "wrote %s: %d questions in %d paragraphs (synthetic, not the official dev set)\n", path, ds.NumQuestions(), ds.NumParagraphs())
	return nil
}

func verifySquad(req *benchmark.DatasetRequest) error {
	path := benchmark.FileIn(req.Data, squad.DevFileName)
	rep, err := squad.Verify(path)
	if err != nil {
		return err
	}
	kind := "not the official dev-v1.1.json"
	if rep.Official {
		kind = "the official dev-v1.1.json"
	}
	fmt.Fprintf(req.Stdout, "%s: SQuAD v%s, %d questions in %d paragraphs, md5 %s (%s)\n", rep.Path, squad.Version, rep.Questions, rep.Paragraphs, rep.MD5, kind)
	if req.Extra["official"] == "true" && !rep.Official {
		return fmt.Errorf("squad: %s: md5 %s, want %s (download it with datasets/squad/download_dataset.sh)", path, rep.MD5, squad.DevMD5)
	}
	if req.Extra["features"] == "true" {
		v, err := LoadVocab(req.Extra["vocab"])
		if err != nil {
			return err
		}
		ds, err := squad.Load(path)
		if err != nil {
			return err
		}
		start := time.Now()
		feats, err := BuildFeatures(Examples(ds), NewTokenizer(v), DefaultConfig)
		if err != nil {
			return err
		}
		fmt.Fprintf(req.Stdout, "built %d features in %.3fs\n", len(feats), time.Since(start).Seconds())
		if rep.Official && len(feats) != squad.DevFeatures {
			return fmt.Errorf("squad: %s gives %d features, want %d", path, len(feats), squad.DevFeatures)
		}
	}
	fmt.Fprintln(req.Stdout, "OK")
	return nil
}
