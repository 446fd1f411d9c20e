package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/models/gptj"
)

func init() {
	handle("run gptj", "run GPT-J 6B (CNN-DailyMail summarisation, beam search 4) through the loadgen", runGPTJ)
	handle("accuracy gptj", "score a GPT-J mlperf_log_accuracy.json against cnn_eval.json (ROUGE, gen_len, as evaluation.py)", accuracyGPTJ)
	handle("dataset synth cnndm", "write a synthetic cnn_eval.json (news articles, some over the 1919-token prompt limit)", datasetSynthCNNDM)
	handle("dataset verify cnndm", "check a cnn_eval.json (format, instruction, 13368 records) and count truncated prompts", datasetVerifyCNNDM)
}

// gptjDefaults are the run flags' defaults for GPT-J.
func gptjDefaults() runFlags {
	return runFlags{
		Scenario: "Offline", Mode: "performance", Model: "synthetic", Data: "synthetic",
		Backend: "cpu", Batch: 1, Out: filepath.Join("out", "gptj"),
	}
}

// defaultGPT2Dir is where make setup puts GPT-2's encoder.json and
// vocab.bpe.
func defaultGPT2Dir() string {
	deps := os.Getenv("MLPERF_DEPS")
	if deps == "" {
		deps = ".deps"
	}
	return filepath.Join(deps, "gptj")
}

// gptjDataPath resolves --data: synthetic writes a small data set into the
// cache folder.
func gptjDataPath(data string, stderr io.Writer) (string, error) {
	if data != "synthetic" {
		return cnndm.Path(data), nil
	}
	path := filepath.Join(cacheDir(), "cnndm-synthetic-small", cnndm.FileName)
	recs, err := cnndm.Synth(cnndm.SmallSynth)
	if err != nil {
		return "", err
	}
	if err := cnndm.WriteFile(path, recs); err != nil {
		return "", err
	}
	fmt.Fprintf(stderr, "gptj: synthetic cnn_eval.json (generated articles, not CNN-DailyMail) at %s\n", path)
	return path, nil
}

// gptjModelFile resolves --model: a file, or the synthetic model of a
// size, built once into the cache folder (the full one with its weights
// in a .data side file).
func gptjModelFile(model string, stderr io.Writer) (string, error) {
	size, ok := syntheticModel(model)
	if !ok {
		if _, err := os.Stat(model); err != nil {
			return "", fmt.Errorf("gptj: model file %s not found (export the checkpoint of models/gptj/download_model.sh to ONNX, or use --model synthetic)", model)
		}
		return model, nil
	}
	path := filepath.Join(cacheDir(), fmt.Sprintf("gptj-synthetic-%s.onnx", size))
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "gptj: building the synthetic %s model (seeded random weights) into %s\n", size, path)
		if err := gptj.BuildFile(path, size, gptj.ArchSeed); err != nil {
			return "", err
		}
	}
	return path, nil
}

// gptjSetup is what a GPT-J run works on.
type gptjSetup struct {
	data  *gptj.Data
	sess  backend.Session
	qsl   *harness.QSL[[]int32]
	model *gptj.Model
}

func (s *gptjSetup) Close() error {
	if s.sess != nil {
		return s.sess.Close()
	}
	return nil
}

// parseLengthMode reads --length-norm.
func parseLengthMode(s string) (sample.LengthMode, error) {
	switch s {
	case "prompt":
		return sample.LengthWithPrompt, nil
	case "generated":
		return sample.LengthGenerated, nil
	}
	return 0, usageError("--length-norm %q: want prompt (transformers ≈4.30, the reference's era) or generated (later versions)", s)
}

// setupGPTJ loads the tokenizer, the data set and the model, checks the
// model against the decoder contract and the tokenizer, and builds the QSL.
func setupGPTJ(f *runFlags, tokDir string, mode sample.LengthMode, stderr io.Writer) (*gptjSetup, error) {
	if err := os.MkdirAll(f.Out, 0o755); err != nil {
		return nil, fmt.Errorf("gptj: output folder: %w", err)
	}
	tok, err := tokenizer.LoadGPT2(tokDir)
	if err != nil {
		return nil, fmt.Errorf("gptj: %w", err)
	}
	dataPath, err := gptjDataPath(f.Data, stderr)
	if err != nil {
		return nil, err
	}
	if f.Cache != "" {
		fmt.Fprintln(stderr, "gptj: --cache is not used: prompts are tokenized in memory when the loadgen loads them")
	}
	data, err := gptj.OpenData(gptj.DataConfig{Dataset: dataPath, Tokenizer: tok, Count: f.Count})
	if err != nil {
		return nil, err
	}
	path, err := gptjModelFile(f.Model, stderr)
	if err != nil {
		return nil, err
	}
	sess, err := openSession(path, f, nil)
	if err != nil {
		return nil, err
	}
	s := &gptjSetup{data: data, sess: sess}
	fail := func(err error) (*gptjSetup, error) {
		sess.Close()
		return nil, fmt.Errorf("%w (model %s)", err, path)
	}
	spec, err := gptj.SpecOf(sess)
	if err != nil {
		return fail(err)
	}
	if err := data.CheckVocab(spec.Vocab); err != nil {
		return fail(err)
	}
	p := newProgress(stderr, "tokenizing prompts", "samples")
	if s.qsl, err = data.NewQSL(gptj.DataConfig{MaxPositions: spec.MaxPositions, Progress: p.update}); err != nil {
		return fail(err)
	}
	if s.model, err = gptj.NewSpec(sess, spec, gptj.QSLPrompts(s.qsl), gptj.Generation(mode)); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "gptj: %d records from %s; model %s: %d layers, %d heads of %d, vocabulary %d\n",
		len(data.Records), dataPath, path, spec.Layers, spec.KVHeads, spec.HeadDim, spec.Vocab)
	return s, nil
}

func runGPTJ(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run gptj", flag.ContinueOnError)
	f := addRunFlags(fs, gptjDefaults())
	tokDir := fs.String("tokenizer", defaultGPT2Dir(), "folder with GPT-2's encoder.json and vocab.bpe (make setup installs them)")
	lengthNorm := fs.String("length-norm", "prompt", "beam-score length normalisation: prompt (prompt + generated tokens, transformers ≈4.30) or generated")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.Batch == 0 {
		f.Batch = 1
	}
	mode, err := parseLengthMode(*lengthNorm)
	if err != nil {
		return err
	}
	s, err := setupGPTJ(f, *tokDir, mode, os.Stderr)
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
	fmt.Fprintf(os.Stderr, "gptj: %s %s, model %s, %s backend, batch %d, %d worker(s), beam search %d beams, %d to %d new tokens\n",
		f.Scenario, f.Mode, f.Model, f.Backend, f.Batch, f.Workers, gptj.Beams, gptj.MinNewTokens, gptj.MaxNewTokens)
	err = runLoadgen(ctx, runSpec{
		flags: f,
		model: gptj.Name,
		sut:   sut,
		qsl:   s.qsl,
		done:  counter.Done,
		score: func(logPath string) (string, error) {
			r, err := s.data.Score(logPath, accuracy.Int64)
			if err != nil {
				return "", err
			}
			return r.GPTJString(), nil
		},
		synthetic: isSynthetic(f.Model),
	})
	return err
}

func accuracyGPTJ(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("accuracy gptj", flag.ContinueOnError)
	logPath := fs.String("log", "", "mlperf_log_accuracy.json (required)")
	data := fs.String("data", "", "cnn_eval.json or its folder, or synthetic (required)")
	tokDir := fs.String("tokenizer", defaultGPT2Dir(), "folder with GPT-2's encoder.json and vocab.bpe")
	dtype := fs.String("dtype", "int64", "response type: int64 (the reference) or int32")
	out := fs.String("out", "", "also write the result line to this file (e.g. accuracy.txt)")
	count := fs.Int("count", 0, "the --count of the run (0: all records)")
	model := fs.String("model", "", "the run's --model; synthetic or synthetic:tiny labels the score as not meaningful")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *logPath == "" || *data == "" {
		return usageError("--log FILE and --data FILE are required")
	}
	if *count < 0 {
		return usageError("--count takes a non-negative value")
	}
	dt := accuracy.DType(*dtype)
	if dt != accuracy.Int64 && dt != accuracy.Int32 {
		return usageError("--dtype %q: want int64 or int32", *dtype)
	}
	tok, err := tokenizer.LoadGPT2(*tokDir)
	if err != nil {
		return fmt.Errorf("gptj: %w", err)
	}
	path, err := gptjDataPath(*data, os.Stderr)
	if err != nil {
		return err
	}
	d, err := gptj.OpenData(gptj.DataConfig{Dataset: path, Tokenizer: tok, Count: *count})
	if err != nil {
		return err
	}
	start := time.Now()
	r, err := d.Score(*logPath, dt)
	if err != nil {
		return err
	}
	line := r.GPTJString()
	fmt.Printf("\nResults\n\n%s\n", line)
	if isSynthetic(*model) {
		fmt.Println("(synthetic weights: accuracy not meaningful)")
	}
	fmt.Fprintf(os.Stderr, "gptj: scored %d predictions in %.2fs\n", r.GenNum, time.Since(start).Seconds())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(line+"\n"), 0o644); err != nil {
			return fmt.Errorf("gptj: %w", err)
		}
	}
	return nil
}

func datasetSynthCNNDM(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dataset synth cnndm", flag.ContinueOnError)
	out := fs.String("o", "", "output file, or folder to write "+cnndm.FileName+" into (required)")
	n := fs.Int("n", cnndm.SmallSynth.Records, "number of records")
	seed := fs.Uint64("seed", cnndm.SmallSynth.Seed, "content seed (same n and seed, same bytes)")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *out == "" {
		return usageError("-o FILE is required")
	}
	if *n < 1 {
		return usageError("-n %d: want at least 1", *n)
	}
	cfg := cnndm.SmallSynth
	cfg.Records, cfg.Seed = *n, *seed
	recs, err := cnndm.Synth(cfg)
	if err != nil {
		return err
	}
	path := *out
	if st, err := os.Stat(path); (err == nil && st.IsDir()) || strings.HasSuffix(path, string(os.PathSeparator)) {
		path = filepath.Join(path, cnndm.FileName)
	}
	if err := cnndm.WriteFile(path, recs); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d records (synthetic articles, not CNN-DailyMail)\n", path, len(recs))
	return nil
}

func datasetVerifyCNNDM(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dataset verify cnndm", flag.ContinueOnError)
	data := fs.String("data", "", "cnn_eval.json, or the folder holding it (required)")
	partial := fs.Bool("partial", false, "accept another record count than the validation split's 13368")
	tokDir := fs.String("tokenizer", "", "GPT-2 tokenizer folder: also tokenize every prompt and count those cut at 1919 tokens")
	if err := parse(fs, args, os.Stdout); err != nil {
		return err
	}
	if *data == "" {
		return usageError("--data FILE is required")
	}
	rep, err := cnndm.Verify(*data)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d records, %d article characters, %d highlight characters, md5 %s\n", rep.Path, rep.Records, rep.ArticleChars, rep.TargetChars, rep.MD5)
	if !rep.Complete && !*partial {
		return fmt.Errorf("cnndm: %s has %d records, want %d (the validation split); --partial accepts it", rep.Path, rep.Records, cnndm.ValidationRecords)
	}
	if *tokDir != "" {
		tok, err := tokenizer.LoadGPT2(*tokDir)
		if err != nil {
			return fmt.Errorf("cnndm: %w", err)
		}
		recs, err := cnndm.Load(rep.Path)
		if err != nil {
			return err
		}
		truncated, total := 0, 0
		for _, r := range recs {
			n := len(tok.Encode(tokenizer.FormatGPTJPrompt(r.Instruction, r.Input)))
			total += min(n, gptj.MaxInputTokens)
			if n > gptj.MaxInputTokens {
				truncated++
			}
		}
		fmt.Printf("prompts: %d tokens in all after truncation, %d of %d cut at %d tokens\n", total, truncated, len(recs), gptj.MaxInputTokens)
	}
	fmt.Println("OK")
	return nil
}

// gptj.Model is what the harness SUTs run.
var _ harness.Model = (*gptj.Model)(nil)
