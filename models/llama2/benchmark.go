package llama2

// The llama2 benchmark as the framework runs it: its descriptor and
// driver (see package benchmark/spec).

import (
	"context"
	"fmt"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(openOrca)
}

// tokenizerOption is --tokenizer of run, perf, accuracy and dataset synth.
var tokenizerOption = spec.Option{Name: "tokenizer", Default: spec.DepsPath("llama2"), Deps: "llama2/llama-tokenizer.js",
	Usage: "folder of llama-tokenizer.js (make setup installs it): decodes for the score, builds the synthetic data, checks the model's vocabulary"}

// defaultBatch is the number of sequences decoded together when --batch
// is not given.
const defaultBatch = 8

// descriptor is Llama 2 70B on OpenOrca (ROUGE, tokens per sample) as the
// registry runs it: greedy decoding with continuous batching as its own
// SUT. --model-name llama2-70b-interactive selects the interactive Server
// latency bounds.
var descriptor = &spec.Benchmark{
	Name:       "llama2",
	Summary:    "Llama 2 70B chat (OpenOrca, greedy decoding, continuous batching, ROUGE)",
	ConfNames:  []string{benchmarkName, interactiveName},
	CheckerIDs: []string{"llama2-70b-99", "llama2-70b-99.9"},
	Scenarios:  []loadgen.Scenario{loadgen.Server, loadgen.Offline},
	Dataset:    "openorca",
	// The default model is the tiny synthetic one: the full-size synthetic
	// 70B is 276 GB of float32 weights.
	Model: spec.Models{
		Default: "synthetic:" + SizeTiny,
		Sizes: []spec.Size{{Name: size70B, Summary: "Llama-2-70b-chat-hf's shape, 276 GB of float32"},
			{Name: size7B, Summary: "Llama-2-7b-chat-hf's shape"}, {Name: SizeTiny, Summary: "2 layers of width 64"}},
		Seed:      archSeed,
		BuildSize: SizeTiny,
	},
	Batch: spec.Batches{loadgen.Server: {CPU: defaultBatch}, loadgen.Offline: {CPU: defaultBatch}},
	Options: []spec.Option{tokenizerOption,
		newTokens.Option()},
	LogShape: &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Int32, MinElems: 1, MaxValue: 32000},
	// --workers and --cache are not used: one decode loop batches every
	// running sequence (--batch), and the prompts are read from the
	// parquet as they are.
	Compliance: []string{"TEST06"},
	EOS:        EOS,
	Driver:     driver{},
}

// newTokens is --max-new-tokens.
var newTokens = llmbench.NewTokens{Bench: "llama2", Default: maxNewTokensDefault, Min: 2, Why: llmbench.TokenLatencyMin}

// driver is the llama2 benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return buildFile(path, size, seed) }

// BuildGGUF implements spec.GGUFBuilder: the synthetic model as a llama.cpp
// GGUF with the Llama 2 vocabulary of --tokenizer.
func (driver) BuildGGUF(path, size string, seed uint64, e spec.Extra) error {
	tok, err := lazyTokenizer(e["tokenizer"])()
	if err != nil {
		return err
	}
	return buildGGUFFile(path, size, seed, tok)
}

// CheckOptions implements spec.OptionChecker: --max-new-tokens.
func (driver) CheckOptions(o *spec.RunOptions) error { _, err := newTokens.Parse(o.Extra); return err }

// Open opens the data set and the model, checks the model's vocabulary
// against the tokenizer and starts the continuous-batching SUT; with
// --backend openai it opens the remote server instead (openRemote).
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (inst *spec.Instance, err error) {
	llmbench.NoteUnusedCache(env, "llama2")
	maxNew, err := newTokens.Parse(env.Extra)
	if err != nil {
		return nil, err
	}
	switch env.Backend {
	case "openai", "sglang":
		return openRemote(env, maxNew)
	case "kserve":
		return nil, spec.UsageError("llama2: --backend kserve serves tensor models; a decoder runs remotely over --backend openai or sglang (e.g. against mlperf serve llama2)")
	}
	tokPath := env.Extra["tokenizer"]
	tok := lazyTokenizer(tokPath)
	dataPath, err := dataFile(env.Data, env.CacheDir, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	var closers spec.Closers
	defer func() {
		if err != nil {
			closers.Close()
		}
	}()
	ds, err := openorca.Open(dataPath)
	if err != nil {
		return nil, err
	}
	closers.Add(ds.Close)
	accuracyRun := env.Mode == loadgen.AccuracyOnly || env.Mode == loadgen.SubmissionRun
	m, dims, closeModel, err := loadDecoder(env, tok, accuracyRun)
	if err != nil {
		return nil, err
	}
	closers.Add(closeModel)
	qsl, err := newQSL(ds, env.Count, dims, maxNew)
	if err != nil {
		return nil, err
	}
	gen := Generation()
	gen.MaxNewTokens = maxNew
	newTokens.NoteNonCompliant(env.Stderr, maxNew)
	bench, err := newBenchmark(ctx, m, benchmarkConfig{
		sutConfig: sutConfig{Prompts: qsl.Prompt, MaxBatch: env.Batch, Generation: gen},
		Offline:   env.Scenario == loadgen.Offline,
	})
	if err != nil {
		return nil, err
	}
	closers.Add(bench.Close)
	raw, stopRaw, err := llmbench.Continuous(m, qsl.Prompt, gen, env.Batch)
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	closers.Add(stopRaw)
	return &spec.Instance{
		SUT: bench,
		QSL: qsl,
		// A sequence's cache at its longest: the longest prompt of the
		// data set and every new token.
		SampleBytes: dims.BytesPerToken(backend.Float32) * int64(openorca.MaxTokens+maxNew),
		Describe: fmt.Sprintf("llama2: %s %s (%s), model %s (%d layers, %d kv heads × %d, vocabulary %d), %s backend, continuous batching of %d, %d samples in %s",
			env.Scenario, env.Mode, env.ModelName, env.Model, dims.Layers, dims.KVHeads, dims.HeadDim, dims.Vocab, env.Backend, env.Batch, qsl.TotalSampleCount(), dataPath),
		Raw:      raw,
		RawWhole: true,
		After:    llmbench.After(env, bench, "llama2", "generated tokens", true, EOS),
		Close:    closers.Close,
	}, nil
}

// loadDecoder opens the run's model file as a greedy decoder and checks
// its vocabulary against the tokenizer (a missing tokenizer is an error
// only when needTok is set). Close the returned func after use.
func loadDecoder(env *spec.OpenRequest, tok func() (*tokenizer.Llama, error), needTok bool) (*generate.Model, generate.Spec, func() error, error) {
	sess, err := env.Engine.OpenSession(env.ModelPath, nil)
	if err != nil {
		return nil, generate.Spec{}, nil, err
	}
	fail := func(err error) (*generate.Model, generate.Spec, func() error, error) {
		sess.Close()
		return nil, generate.Spec{}, nil, err
	}
	dims := specFromSession(sess)
	if env.Synthetic() {
		c, err := configOf(env.SyntheticSize)
		if err != nil {
			return fail(err)
		}
		dims = c.Spec()
	}
	m, err := newFromSpec(sess, dims)
	if err != nil {
		return fail(fmt.Errorf("%w (model %s)", err, env.ModelDesc))
	}
	if t, terr := tok(); terr == nil {
		if err := tokenizer.CheckModelVocab(t, dims.Vocab); err != nil {
			return fail(fmt.Errorf("llama2: %w (model %s, tokenizer %s)", err, env.ModelPath, env.Extra["tokenizer"]))
		}
	} else if needTok {
		return fail(terr)
	} else {
		fmt.Fprintf(env.Stderr, "llama2: %v; the model's vocabulary is not checked\n", terr)
	}
	return m, dims, sess.Close, nil
}

// Score is the reference's evaluate-accuracy.py: ROUGE of the decoded
// outputs against the OpenOrca responses, and tokens per sample.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	dt, err := llmbench.ScoreDType("llama2", req.DType)
	if err != nil {
		return nil, err
	}
	tok := lazyTokenizer(req.Extra["tokenizer"])
	t, err := tok()
	if err != nil {
		return nil, err
	}
	path, err := dataFile(req.Data, req.CacheDir, tok, req.Stderr)
	if err != nil {
		return nil, err
	}
	ds, err := openorca.Open(path)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	r, err := score(req.Log, ds, t, dt)
	if err != nil {
		return nil, err
	}
	line := r.Llama2String()
	return &spec.Score{Lines: []string{line}, Text: "\nResults\n\n" + line + "\n"}, nil
}
