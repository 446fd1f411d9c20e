package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/models/bert"
)

func init() {
	syntheticBuilders[bert.Name] = func(size string, w io.Writer) error {
		return bert.Build(w, size, bert.ArchSeed)
	}
	handle("run bert", "run BERT-large (SQuAD v1.1) through the loadgen", runBERT)
	handle("perf bert", "raw ONNX Runtime throughput vs the same through a full Offline run (ratio=harness/raw)", perfBERT)
	handle("model build bert", "write the synthetic BERT-large SQuAD model (official contract, seeded weights)", modelBuildBERT)
}

// bertDefaults are the run flags' defaults for BERT.
func bertDefaults() runFlags {
	return runFlags{
		Scenario: "Offline", Mode: "performance", Model: "synthetic", Data: "synthetic",
		Backend: "cpu", Out: filepath.Join("out", "bert"),
	}
}

// bertDefaultBatch is the batch size of a scenario when --batch is not
// given: the reference runs every sample alone; batching helps Offline on
// an accelerator.
func bertDefaultBatch(scenario, backendName string) int {
	if scenario == "Offline" && backendName != "cpu" {
		return 16
	}
	return 1
}

// bertSetup is what a BERT run or perf measurement works on.
type bertSetup struct {
	flags *runFlags
	data  string // resolved data set file
	sq    *bert.SQuAD
	sess  backend.Session
	qsl   *harness.QSL[bert.Input]
	model *bert.Model
}

func (s *bertSetup) Close() error {
	if s.sess != nil {
		return s.sess.Close()
	}
	return nil
}

// setupBERT resolves the data set, the vocabulary and the model, builds the
// features, checks the model against the contract and the vocabulary, and
// warms it up.
func setupBERT(ctx context.Context, f *runFlags, vocab string, stderr io.Writer) (*bertSetup, error) {
	s := &bertSetup{flags: f}
	if err := os.MkdirAll(f.Out, 0o755); err != nil {
		return nil, fmt.Errorf("bert: output folder: %w", err)
	}
	if f.Data == "synthetic" {
		path := filepath.Join(cacheDir(), "squad-synthetic-small", "dev-v1.1.json")
		fmt.Fprintf(stderr, "bert: synthetic SQuAD v1.1 file (generated text, not the dev set) at %s\n", path)
		if _, err := bert.SynthDataset(path); err != nil {
			return nil, err
		}
		s.data = path
	} else {
		s.data = squadPath(f.Data)
	}
	if f.Cache != "" {
		fmt.Fprintln(stderr, "bert: --cache is not used: the features are built in memory at start-up (about 0.1 s for the dev set)")
	}
	if _, err := os.Stat(vocab); err != nil {
		return nil, fmt.Errorf("bert: vocabulary %s not found: run `make setup` (it installs the MLPerf vocab.txt) or give --vocab FILE", vocab)
	}
	start := time.Now()
	sq, err := bert.OpenData(bert.DataConfig{Dataset: s.data, Vocab: vocab, Count: f.Count})
	if err != nil {
		return nil, err
	}
	s.sq = sq
	fmt.Fprintf(stderr, "bert: %d features from %d questions of %s in %.2fs\n", len(sq.Features), len(sq.Examples), s.data, time.Since(start).Seconds())
	p := newProgress(stderr, "loading samples", "features")
	if s.qsl, err = bert.NewQSL(sq, bert.DataConfig{Progress: p.update}); err != nil {
		return nil, err
	}
	path, err := modelFile(bert.Name, f, stderr)
	if err != nil {
		return nil, err
	}
	rows, err := bert.ModelVocabSize(path)
	switch {
	case errors.Is(err, bert.ErrNoEmbedding):
		fmt.Fprintf(stderr, "bert: %s: no word-embedding table found; the vocabulary size is not checked\n", path)
	case err != nil:
		return nil, err
	default:
		if err := bert.CheckVocab(rows, sq.Tokenizer.Vocab()); err != nil {
			return nil, fmt.Errorf("%w (model %s, vocab %s)", err, path, vocab)
		}
	}
	sess, err := openSession(path, f, nil)
	if err != nil {
		return nil, err
	}
	s.sess = sess
	if s.model, err = bert.New(sess, s.qsl.Sample); err != nil {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, path)
	}
	if fb := s.model.FixedBatch(); fb > 0 && f.Batch > fb {
		sess.Close()
		return nil, usageError("the model has a fixed batch size of %d; use --batch %d or less", fb, fb)
	}
	if err := s.model.Warmup(ctx, f.Batch, 2); err != nil {
		sess.Close()
		return nil, err
	}
	return s, nil
}

// parseBERTFlags parses the shared run flags plus --vocab.
func parseBERTFlags(name string, d runFlags, args []string, extra func(fs *flag.FlagSet)) (*runFlags, string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	f := addRunFlags(fs, d)
	vocab := fs.String("vocab", defaultVocab(), "uncased WordPiece vocab.txt (the MLPerf one; `make setup` installs it)")
	if extra != nil {
		extra(fs)
	}
	if err := parse(fs, args, os.Stdout); err != nil {
		return nil, "", err
	}
	if err := f.check(); err != nil {
		return nil, "", err
	}
	if f.Batch == 0 {
		f.Batch = bertDefaultBatch(f.Scenario, f.Backend)
	}
	return f, *vocab, nil
}

func runBERT(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, vocab, err := parseBERTFlags("run bert", bertDefaults(), args, nil)
	if err != nil {
		return err
	}
	s, err := setupBERT(ctx, f, vocab, os.Stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	counter := &harness.Counter{Model: s.model}
	sut, closeSUT, err := harness.ForScenario(f.Scenario, counter, harness.PoolConfig{Batch: f.Batch, Workers: f.Workers})
	if err != nil {
		return err
	}
	defer closeSUT()
	fmt.Fprintf(os.Stderr, "bert: %s %s, model %s, %s backend, batch %d, %d worker(s), %d samples in the data set\n",
		f.Scenario, f.Mode, f.Model, f.Backend, f.Batch, f.Workers, s.qsl.TotalSampleCount())
	return runLoadgen(ctx, runSpec{
		flags: f,
		model: bert.Name,
		sut:   sut,
		qsl:   s.qsl,
		done:  counter.Done,
		score: func(logPath string) (string, error) {
			return scoreSquadLog(logPath, s.sq)
		},
		synthetic: isSynthetic(f.Model),
	})
}

// scoreSquadLog scores a BERT mlperf_log_accuracy.json with the
// reference's post-processing (accuracy-squad.py) and the official SQuAD
// v1.1 evaluation, returning its one-line result.
func scoreSquadLog(logPath string, sq *bert.SQuAD) (string, error) {
	results, err := readSquadLog(logPath, len(sq.Features))
	if err != nil {
		return "", err
	}
	res, err := sq.Score(results)
	if err != nil {
		return "", err
	}
	return res.String(), nil
}

// readSquadLog reads an accuracy log's responses as logits keyed by QSL
// index; a repeated index keeps the first entry, as accuracy-squad.py's
// deduplication does.
func readSquadLog(path string, samples int) (map[int]bert.Logits, error) {
	out := map[int]bert.Logits{}
	_, err := accuracy.ReadUnique(path, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(samples) {
			return fmt.Errorf("bert: accuracy log %s: qsl_idx %d, but the data set has %d features (another data set or --count?)", path, e.QSLIdx, samples)
		}
		l, err := bert.DecodeResponse(e.Data)
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

func perfBERT(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d := bertDefaults()
	d.Out = filepath.Join("out", "bert-perf")
	var dur *time.Duration
	f, vocab, err := parseBERTFlags("perf bert", d, args, func(fs *flag.FlagSet) {
		dur = fs.Duration("time", 20*time.Second, "how long each side (raw and harness) is measured in all, over the alternating rounds")
	})
	if err != nil {
		return err
	}
	if f.Duration > 0 { // --duration is the shared spelling of --time
		*dur = f.Duration
	}
	if f.Scenario != "Offline" || f.Mode != "performance" {
		return usageError("perf bert measures an Offline performance run; leave --scenario and --mode out")
	}
	s, err := setupBERT(ctx, f, vocab, os.Stderr)
	if err != nil {
		return err
	}
	defer s.Close()

	// Raw: the session's Run, back to back, on batches of real features
	// taken in turn from the first up to 8 × batch (the harness run sees
	// the same kind of data).
	total := s.qsl.TotalSampleCount()
	nb := max(1, min(8, total/f.Batch))
	idx := make([]loadgen.SampleIndex, 0, min(nb*f.Batch, total))
	for i := range min(nb*f.Batch, total) {
		idx = append(idx, loadgen.SampleIndex(i))
	}
	if err := s.qsl.LoadSamples(ctx, idx); err != nil {
		return err
	}
	c := s.model.Contract()
	shape := []int64{int64(f.Batch), bert.MaxSeqLength}
	batches := make([][]backend.Tensor, nb)
	for k := range batches {
		size := f.Batch * bert.MaxSeqLength
		ids, mask, seg := make([]int64, 0, size), make([]int64, 0, size), make([]int64, 0, size)
		for j := range f.Batch {
			x, _ := s.qsl.Sample(idx[(k*f.Batch+j)%len(idx)])
			ids, mask, seg = append(ids, x.IDs...), append(mask, x.Mask...), append(seg, x.Segments...)
		}
		batches[k] = []backend.Tensor{
			{Name: c.IDs, DType: backend.Int64, Shape: shape, Data: ids},
			{Name: c.Mask, DType: backend.Int64, Shape: shape, Data: mask},
			{Name: c.Segments, DType: backend.Int64, Shape: shape, Data: seg},
		}
	}
	if err := s.qsl.UnloadSamples(ctx, idx); err != nil {
		return err
	}
	var next atomic.Int64
	raw := func(ctx context.Context, d time.Duration, _ float64) (int64, time.Duration, error) {
		calls, el, err := harness.Measure(ctx, f.Workers, d, func(ctx context.Context) error {
			_, err := s.sess.Run(ctx, batches[int(next.Add(1)-1)%nb])
			return err
		})
		return calls * int64(f.Batch), el, err
	}
	counter := &harness.Counter{Model: s.model}
	sut, closeSUT, err := harness.ForScenario("Offline", counter, harness.PoolConfig{Batch: f.Batch, Workers: f.Workers})
	if err != nil {
		return err
	}
	defer closeSUT()
	spec := runSpec{flags: f, model: bert.Name, sut: sut, qsl: s.qsl, done: counter.Done}
	viaHarness := func(ctx context.Context, d time.Duration, qps float64) (int64, time.Duration, error) {
		return offlineRun(ctx, spec, d, qps)
	}
	fmt.Fprintf(os.Stderr, "perf: raw %s Run (%d batches of real features in turn) vs loadgen Offline runs, batch %d, %d worker(s), %v each, alternating in %d rounds\n", f.Backend, nb, f.Batch, f.Workers, *dur, perfRounds)
	rawQPS, got, err := perfCompare(ctx, os.Stderr, *dur, raw, viaHarness)
	if err != nil {
		return err
	}
	fmt.Printf("raw:     %.2f samples/s (batch %d, %d worker(s))\n", rawQPS, f.Batch, f.Workers)
	fmt.Printf("harness: %.2f samples/s (loadgen Offline, logs in %s)\n", got, f.Out)
	fmt.Printf("ratio=%.4f\n", got/rawQPS)
	return nil
}

func modelBuildBERT(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("model build bert", flag.ContinueOnError)
	size := fs.String("size", bert.SizeFull, "full (BERT-large, 334M parameters, 1.34 GB) or tiny (2 layers of width 64, 8 MB)")
	out := fs.String("o", "", "output .onnx file (required)")
	seed := fs.Uint64("seed", bert.ArchSeed, "weight seed (same size and seed, same bytes)")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	if *size != bert.SizeFull && *size != bert.SizeTiny {
		return usageError("--size %q: want full or tiny", *size)
	}
	if err := bert.BuildFile(*out, *size, *seed); err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Printf("wrote the synthetic BERT (%s, seed %d) to %s, %.1f MB\n", *size, *seed, *out, float64(st.Size())/1e6)
	return nil
}
