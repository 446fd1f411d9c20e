package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/models/llama2"
)

func init() {
	handle("run llama2", "run Llama 2 70B (OpenOrca) through the loadgen: greedy decoding with continuous batching", runLlama2)
	handle("accuracy llama2", "score a Llama 2 mlperf_log_accuracy.json against the OpenOrca parquet (ROUGE, tokens per sample)", accuracyLlama2)
	handle("dataset synth openorca", "write a small OpenOrca parquet in the reference's format (generated text, real Llama 2 tokenizer)", datasetSynthOpenOrca)
	handle("dataset verify openorca", "check an OpenOrca parquet: columns, token invariants, rows per origin", datasetVerifyOpenOrca)
	handle("compliance test06", "TEST06 checks of an LLM accuracy log: first token, trailing EOS, token_count", complianceTEST06)
}

// llama2Defaults are the run flags' defaults for Llama 2. The default
// model is the tiny synthetic one: the full-size synthetic 70B is 276 GB of
// float32 weights.
func llama2Defaults() runFlags {
	return runFlags{
		Scenario: "Offline", Mode: "performance", Model: "synthetic:tiny", Data: "synthetic",
		Backend: "cpu", Out: filepath.Join("out", "llama2"),
	}
}

// llama2DefaultBatch is the number of sequences decoded together when
// --batch is not given.
const llama2DefaultBatch = 8

// defaultLlamaTokenizer is where make setup puts llama-tokenizer.js.
func defaultLlamaTokenizer() string {
	deps := os.Getenv("MLPERF_DEPS")
	if deps == "" {
		deps = ".deps"
	}
	return filepath.Join(deps, "llama2")
}

func loadLlamaTokenizer(path string) (*tokenizer.Llama, error) {
	tok, err := tokenizer.LoadLlama(path)
	if err != nil {
		return nil, fmt.Errorf("llama2: %w (give --tokenizer DIR)", err)
	}
	return tok, nil
}

// llama2SyntheticSize maps --model synthetic[:SIZE] to a Config size.
func llama2SyntheticSize(model string) (string, bool) {
	m := strings.ToLower(model)
	if m == "synthetic" || m == "synthetic:full" {
		return llama2.Size70B, true
	}
	size, ok := strings.CutPrefix(m, "synthetic:")
	if !ok {
		return "", false
	}
	return size, true
}

// llama2ModelFile resolves --model: a file, or the synthetic model of a
// size built once into the cache folder (a folder per size, since models
// over 2 GiB keep their weights beside the .onnx).
func llama2ModelFile(model string, stderr io.Writer) (path string, cfg *llama2.Config, err error) {
	size, ok := llama2SyntheticSize(model)
	if !ok {
		if _, err := os.Stat(model); err != nil {
			return "", nil, fmt.Errorf("llama2: model file %s not found (see models/llama2/download_model.sh, or use --model synthetic:tiny)", model)
		}
		return model, nil, nil
	}
	c, err := llama2.ConfigOf(size)
	if err != nil {
		return "", nil, usageError("--model %s: %v", model, err)
	}
	dir := filepath.Join(cacheDir(), "llama2-synthetic-"+size)
	path = filepath.Join(dir, "model.onnx")
	if _, err := os.Stat(path); err == nil {
		return path, &c, nil
	}
	fmt.Fprintf(stderr, "llama2: building the synthetic %s model (seeded random weights, %.1f GB of float32) into %s\n", size, float64(c.Params())*4/1e9, dir)
	if err := os.MkdirAll(cacheDir(), 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(cacheDir(), ".llama2-synthetic-"+size+"-*")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	if err := llama2.BuildConfigFile(filepath.Join(tmp, "model.onnx"), c, llama2.ArchSeed); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", nil, err
	}
	return path, &c, nil
}

// llama2DataFile resolves --data: synthetic (generated once into the cache
// folder with tok), a parquet file, or a folder holding openorca.FileName.
func llama2DataFile(data string, tok func() (*tokenizer.Llama, error), stderr io.Writer) (string, error) {
	if data == "synthetic" {
		path := filepath.Join(cacheDir(), "openorca-synthetic-small", openorca.FileName)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		t, err := tok()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(stderr, "llama2: synthetic OpenOrca parquet (generated text, %d rows) at %s\n", openorca.SmallSynth.Samples, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		return path, openorca.SynthFile(path, t, openorca.SmallSynth)
	}
	if st, err := os.Stat(data); err == nil && st.IsDir() {
		return filepath.Join(data, openorca.FileName), nil
	}
	return data, nil
}

// lazyTokenizer loads the tokenizer at most once.
func lazyTokenizer(path string) func() (*tokenizer.Llama, error) {
	var tok *tokenizer.Llama
	var err error
	done := false
	return func() (*tokenizer.Llama, error) {
		if !done {
			tok, err = loadLlamaTokenizer(path)
			done = true
		}
		return tok, err
	}
}

func runLlama2(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run llama2", flag.ContinueOnError)
	// --workers and --cache are shared flags that Llama 2 does not use:
	// one decode loop batches every running sequence (--batch), and the
	// prompts are read from the parquet as they are.
	f := addRunFlags(fs, llama2Defaults())
	modelName := fs.String("model-name", llama2.Name, "model name in mlperf.conf: llama2-70b (TTFT 2 s, TPOT 200 ms) or llama2-70b-interactive (450 ms, 40 ms)")
	tokPath := fs.String("tokenizer", defaultLlamaTokenizer(), "folder of llama-tokenizer.js (make setup installs it): decodes for the score, builds the synthetic data, checks the model's vocabulary")
	maxNew := fs.Int("max-new-tokens", llama2.MaxNewTokens, "most tokens generated per sample (the reference: 1024; fewer is not a compliant run)")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if *modelName != llama2.Name && *modelName != llama2.InteractiveName {
		return usageError("--model-name %q: want %s or %s", *modelName, llama2.Name, llama2.InteractiveName)
	}
	if *maxNew < 2 {
		return usageError("--max-new-tokens %d: want at least 2 (with token latencies LoadGen needs n_tokens > 1)", *maxNew)
	}
	if f.Batch == 0 {
		f.Batch = llama2DefaultBatch
	}
	if err := os.MkdirAll(f.Out, 0o755); err != nil {
		return fmt.Errorf("llama2: output folder: %w", err)
	}
	tok := lazyTokenizer(*tokPath)
	dataPath, err := llama2DataFile(f.Data, tok, stderr)
	if err != nil {
		return err
	}
	ds, err := openorca.Open(dataPath)
	if err != nil {
		return err
	}
	defer ds.Close()
	modelPath, cfg, err := llama2ModelFile(f.Model, stderr)
	if err != nil {
		return err
	}
	sess, err := openSession(modelPath, f, nil)
	if err != nil {
		return err
	}
	defer sess.Close()
	spec := llama2.SpecFromSession(sess)
	if cfg != nil {
		spec = cfg.Spec()
	}
	m, err := llama2.NewFromSpec(sess, spec)
	if err != nil {
		return fmt.Errorf("%w (model %s)", err, modelPath)
	}
	accuracyRun := f.Mode == "accuracy" || f.Mode == "submission"
	if t, terr := tok(); terr == nil {
		if err := tokenizer.CheckModelVocab(t, spec.Vocab); err != nil {
			return fmt.Errorf("llama2: %w (model %s, tokenizer %s)", err, modelPath, *tokPath)
		}
	} else if accuracyRun {
		return terr
	} else {
		fmt.Fprintf(stderr, "llama2: %v; the model's vocabulary is not checked\n", terr)
	}
	qsl, err := llama2.NewQSL(ds, f.Count, spec, *maxNew)
	if err != nil {
		return err
	}
	gen := llama2.Generation()
	gen.MaxNewTokens = *maxNew
	if *maxNew != llama2.MaxNewTokens {
		fmt.Fprintf(stderr, "llama2: --max-new-tokens %d (the reference generates up to %d): not a compliant run\n", *maxNew, llama2.MaxNewTokens)
	}
	bench, err := llama2.NewBenchmark(ctx, m, llama2.BenchmarkConfig{
		SUTConfig: llama2.SUTConfig{Prompts: qsl.Prompt, MaxBatch: f.Batch, Generation: gen},
		Offline:   f.Scenario == "Offline",
	})
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			bench.Close()
		}
	}()
	fmt.Fprintf(stderr, "llama2: %s %s (%s), model %s (%d layers, %d kv heads × %d, vocabulary %d), %s backend, continuous batching of %d, %d samples in %s\n",
		f.Scenario, f.Mode, *modelName, f.Model, spec.Layers, spec.KVHeads, spec.HeadDim, spec.Vocab, f.Backend, f.Batch, qsl.TotalSampleCount(), dataPath)
	synthetic := cfg != nil
	err = runLoadgen(ctx, runSpec{
		flags: f,
		model: *modelName,
		sut:   bench,
		qsl:   qsl,
		score: func(logPath string) (string, error) {
			t, err := tok()
			if err != nil {
				return "", err
			}
			r, err := llama2.Score(logPath, ds, t, accuracy.Int32)
			if err != nil {
				return "", err
			}
			return r.Llama2String(), nil
		},
		synthetic: synthetic,
		done:      func() int64 { n, _ := bench.Done(); return n },
	})
	closed = true
	if cerr := bench.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	samples, tokens := bench.Done()
	fmt.Fprintf(stderr, "llama2: %d samples, %d generated tokens\n", samples, tokens)
	if f.AuditConf != "" {
		return writeTEST06(filepath.Join(f.Out, "mlperf_log_accuracy.json"), f.Scenario, f.Out, accuracy.Int32, llama2.EOS)
	}
	return nil
}

// writeTEST06 runs the TEST06 checks on an accuracy log, prints them and
// writes them to outDir/TEST06/verify_accuracy.txt, as run_verification.py.
func writeTEST06(logPath, scenario, outDir string, dtype accuracy.DType, eos int64) error {
	r, err := llama2.CheckTEST06(logPath, scenario, dtype, eos)
	if err != nil {
		return err
	}
	dir := filepath.Join(outDir, "TEST06")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "verify_accuracy.txt"), []byte(r.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(r.String())
	for _, f := range r.Failures {
		fmt.Fprintln(os.Stderr, "TEST06:", f)
	}
	if !r.Pass() {
		return fmt.Errorf("TEST06 verification failed (%d entries of %s)", r.Samples, logPath)
	}
	return nil
}

func accuracyLlama2(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy llama2", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json (required)")
	data := fs.String("data", "", "the OpenOrca parquet the run used (required)")
	out := fs.String("out", "", "also write the result to this file (e.g. accuracy.txt)")
	tokPath := fs.String("tokenizer", defaultLlamaTokenizer(), "folder of llama-tokenizer.js")
	dtype := fs.String("dtype", "int32", "token id type of the log: int32 (what the SUT writes) or int64")
	synthetic := fs.Bool("synthetic", false, "the log comes from a synthetic-weights model: label the score as not meaningful")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *logPath == "" || *data == "" {
		return usageError("--log FILE and --data FILE.parquet are required")
	}
	dt, err := accuracy.ParseDType(*dtype)
	if err != nil || (dt != accuracy.Int32 && dt != accuracy.Int64) {
		return usageError("--dtype %q: want int32 or int64", *dtype)
	}
	tok, err := loadLlamaTokenizer(*tokPath)
	if err != nil {
		return err
	}
	path, err := llama2DataFile(*data, lazyTokenizer(*tokPath), os.Stderr)
	if err != nil {
		return err
	}
	ds, err := openorca.Open(path)
	if err != nil {
		return err
	}
	defer ds.Close()
	r, err := llama2.Score(*logPath, ds, tok, dt)
	if err != nil {
		return err
	}
	text := "\nResults\n\n" + r.Llama2String() + "\n"
	if *synthetic {
		text += "(synthetic weights: accuracy not meaningful)\n"
	} else if llama2.MeetsTargets(r) {
		text += "llama2-70b-99 accuracy targets met\n"
	} else {
		text += fmt.Sprintf("llama2-70b-99 accuracy targets not met (ROUGE-1 ≥ %g, ROUGE-2 ≥ %g, ROUGE-L ≥ %g, tokens per sample in [%g, %g])\n",
			llama2.TargetRouge1, llama2.TargetRouge2, llama2.TargetRougeL, llama2.TargetTokensPerSampleMin, llama2.TargetTokensPerSampleMax)
	}
	fmt.Print(text)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
			return fmt.Errorf("llama2: %w", err)
		}
	}
	return nil
}

func datasetSynthOpenOrca(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dataset synth openorca", flag.ContinueOnError)
	out := fs.String("o", "", "output .parquet file, or a folder to write "+openorca.FileName+" into (required)")
	n := fs.Int("n", openorca.SmallSynth.Samples, "rows (origins cot, flan, niv, t0 in turn)")
	seed := fs.Uint64("seed", openorca.SmallSynth.Seed, "content seed (same n and seed, same rows)")
	tokPath := fs.String("tokenizer", defaultLlamaTokenizer(), "folder of llama-tokenizer.js")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	if *n < 1 {
		return usageError("-n %d: want at least 1", *n)
	}
	tok, err := loadLlamaTokenizer(*tokPath)
	if err != nil {
		return err
	}
	path := *out
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, openorca.FileName)
	}
	if err := openorca.SynthFile(path, tok, openorca.SynthConfig{Samples: *n, Seed: *seed}); err != nil {
		return err
	}
	fmt.Printf("wrote %d synthetic OpenOrca rows (generated text, Llama 2 token ids) to %s\n", *n, path)
	return nil
}

func datasetVerifyOpenOrca(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dataset verify openorca", flag.ContinueOnError)
	data := fs.String("data", "", "OpenOrca parquet file or folder (required)")
	official := fs.Bool("official", false, "fail unless the file has the shape of the official one (24576 rows, 6144 per origin)")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *data == "" {
		return usageError("--data FILE is required")
	}
	path, err := llama2DataFile(*data, nil, os.Stderr)
	if err != nil {
		return err
	}
	ds, err := openorca.Open(path)
	if err != nil {
		return err
	}
	defer ds.Close()
	rep, err := openorca.Verify(ds, 0)
	if err != nil {
		return err
	}
	fmt.Printf("openorca: %s: %s\n", path, rep)
	for _, p := range rep.Problems {
		fmt.Printf("  %s\n", p)
	}
	switch {
	case len(rep.Problems) > 0:
		return fmt.Errorf("openorca: %s: %d problem(s)", path, len(rep.Problems))
	case *official && !rep.Official:
		return fmt.Errorf("openorca: %s is not the official file's shape (%d rows, want %d, %d per origin)", path, rep.Rows, openorca.Rows, openorca.Rows/len(openorca.Origins))
	}
	return nil
}

func complianceTEST06(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compliance test06", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json of the TEST06 run, or its folder (required)")
	scenario := fs.String("scenario", "", "the run's scenario (required): Offline skips the first-token check")
	out := fs.String("out", "", "folder to write TEST06/verify_accuracy.txt into (default: beside the log)")
	dtype := fs.String("dtype", "int32", "token id type: int32, int64")
	eos := fs.Int64("eos", llama2.EOS, "end-of-sequence id")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *logPath == "" || *scenario == "" {
		return usageError("--log and --scenario are required")
	}
	rf := runFlags{Scenario: *scenario, Mode: "performance", Backend: "cpu", Model: "-", Data: "-"}
	if *scenario != "Interactive" {
		if err := rf.check(); err != nil {
			return err
		}
	}
	if st, err := os.Stat(*logPath); err == nil && st.IsDir() {
		*logPath = filepath.Join(*logPath, "mlperf_log_accuracy.json")
	}
	if *out == "" {
		*out = filepath.Dir(*logPath)
	}
	dt, err := accuracy.ParseDType(*dtype)
	if err != nil {
		return usageError("%v", err)
	}
	return writeTEST06(*logPath, rf.Scenario, *out, dt, *eos)
}

// interface checks
var (
	_ loadgen.SUT = (*llama2.Benchmark)(nil)
	_ loadgen.QSL = (*llama2.QSL)(nil)
)
