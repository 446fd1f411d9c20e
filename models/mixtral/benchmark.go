package mixtral

// The mixtral benchmark's descriptor and driver, as the benchmark registry
// runs them (see package benchmark/spec).

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
}

// tokenizerOption is --tokenizer of run, perf, accuracy, serve and the
// data set commands.
var tokenizerOption = spec.Option{Name: "tokenizer", Default: spec.DepsPath("mixtral"), Deps: "mixtral/mistral-tokenizer.js",
	Usage: "folder of mistral-tokenizer.js (npm mistral-tokenizer-js@1.0.0, Mixtral-8x7B's vocabulary; make setup installs it): decodes for the score, builds the synthetic data, checks the model's vocabulary"}

// defaultBatch is the number of sequences decoded together when --batch
// is not given.
const defaultBatch = 8

// descriptor is Mixtral-8x7B Instruct on OpenOrca, GSM8K and MBXP as the
// registry runs it: greedy decoding of 2 to 1024 tokens with continuous
// batching as its own SUT.
var descriptor = &spec.Benchmark{
	Name:       "mixtral",
	Summary:    "Mixtral-8x7B Instruct (OpenOrca, GSM8K, MBXP; greedy up to 1024 tokens, continuous batching; ROUGE, GSM8K and MBXP accuracy, code run in a sandbox)",
	ConfNames:  []string{benchmarkName},
	CheckerIDs: []string{checkerID},
	Scenarios:  []loadgen.Scenario{loadgen.Offline, loadgen.Server},
	Dataset:    "mixtral",
	// The default model is the tiny synthetic one: the full-size
	// synthetic 8x7B is 187 GB of float32 weights.
	Model: spec.Models{
		Default: "synthetic:" + sizeTiny,
		Sizes: []spec.Size{{Name: size8x7B, Summary: "Mixtral-8x7B-Instruct-v0.1's shape (46.7B weights), 187 GB of float32"},
			{Name: sizeTiny, Summary: "2 layers of width 64, 8 experts (top 2), the full vocabulary"}},
		Seed:      archSeed,
		BuildSize: sizeTiny,
	},
	Batch: spec.Batches{loadgen.Server: {CPU: defaultBatch}, loadgen.Offline: {CPU: defaultBatch}},
	Options: []spec.Option{tokenizerOption,
		newTokens.Option(),
		{Name: "toolchains", Usage: "folders (joined by " + string(filepath.ListSeparator) + ") where the MBXP scorer's sandbox looks for compilers and interpreters, instead of the system folders and $PATH; a language whose toolchain is missing scores as failed, with a warning naming the package"}},
	LogShape: &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Int32, MinElems: 0, MaxValue: tokenizer.MistralVocabSize},
	// --workers and --cache are not used: one decode loop batches every
	// running sequence (--batch), and the prompts are tokenized already.
	Compliance: []string{"TEST06"},
	EOS:        tokenizer.MistralEOSID,
	Driver:     driver{},
}

// newTokens is --max-new-tokens.
var newTokens = llmbench.NewTokens{Bench: "mixtral", Default: maxNewTokensDefault, Min: minNewTokens, Why: "the reference's min_new_tokens"}

// driver is the mixtral benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return buildFile(path, size, seed) }

// BuildGGUF implements spec.GGUFBuilder: the synthetic model as a llama.cpp
// GGUF (experts in llama.cpp's stacked layout) with the Mixtral
// vocabulary of --tokenizer.
func (driver) BuildGGUF(path, size string, seed uint64, e spec.Extra) error {
	tok, err := loadTokenizer(e["tokenizer"])
	if err != nil {
		return err
	}
	return buildGGUFFile(path, size, seed, tok)
}

// CheckOptions implements spec.OptionChecker: --max-new-tokens.
func (driver) CheckOptions(o *spec.RunOptions) error {
	_, err := newTokens.Parse(o.Extra)
	return err
}

// Open opens the data set and the model, checks the model's experts and
// vocabulary and starts the continuous-batching SUT (or, with --backend
// openai, the remote one).
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (inst *spec.Instance, err error) {
	llmbench.NoteUnusedCache(env, "mixtral")
	maxNew, err := newTokens.Parse(env.Extra)
	if err != nil {
		return nil, err
	}
	switch env.Backend {
	case "openai":
		return openRemote(env, maxNew)
	case "kserve":
		return nil, spec.UsageError("mixtral: --backend kserve serves tensor models; a decoder runs remotely over --backend openai (e.g. against mlperf serve mixtral or vLLM)")
	}
	tok, err := loadTokenizer(env.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	dataPath, ds, err := loadData(env.Data, env.CacheDir, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	m, arch, closeModel, err := loadDecoder(env, tok)
	if err != nil {
		return nil, err
	}
	closers := spec.Closers{closeModel}
	defer func() {
		if err != nil {
			closers.Close()
		}
	}()
	qsl, err := newQSL(ds, env.Count, arch, maxNew)
	if err != nil {
		return nil, err
	}
	gen := generation()
	gen.MaxNewTokens = maxNew
	newTokens.NoteNonCompliant(env.Stderr, maxNew)
	s, err := m.NewSUT(ctx, generate.SUTConfig{
		BatcherConfig: generate.BatcherConfig{GreedyConfig: gen, MaxBatch: env.Batch},
		Prompt:        qsl.Prompt,
		Encode:        generate.EncodeInt32,
	})
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	bench := llmbench.Wrap(newTrimSUT(s, ds), env.Scenario == loadgen.Offline)
	closers.Add(bench.Close)
	raw, stopRaw, err := llmbench.Continuous(m, qsl.Prompt, gen, env.Batch)
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	closers.Add(stopRaw)
	return &spec.Instance{
		SUT: bench,
		QSL: qsl,
		Describe: fmt.Sprintf("mixtral: %s %s, model %s (%d layers, %d kv heads × %d, vocabulary %d), %s backend, continuous batching of %d, %d samples in %s",
			env.Scenario, env.Mode, env.Model, arch.Layers, arch.KVHeads, arch.HeadDim, arch.Vocab, env.Backend, env.Batch, qsl.TotalSampleCount(), dataPath),
		Raw:      raw,
		RawWhole: true,
		After:    after(env, bench, "generated tokens"),
		Close:    closers.Close,
	}, nil
}

// after reports the samples and tokens of a run (what counts them) and,
// in a TEST06 run, checks the accuracy log as run_verification.py does.
func after(env *spec.OpenRequest, bench *llmbench.SUT, what string) func(context.Context, *loadgen.Result) error {
	return llmbench.After(env, bench, "mixtral", what+" (after the reference's trimming)", true, tokenizer.MistralEOSID)
}

// loadDecoder opens the run's model file as a greedy decoder: a model
// file is first checked for Mixtral's 8 experts, then its vocabulary
// against the tokenizer. Close the returned func after use.
func loadDecoder(env *spec.OpenRequest, tok *tokenizer.Llama) (*generate.Model, generate.Spec, func() error, error) {
	arch := decodeSpec(configs[size8x7B])
	if env.Synthetic() {
		c, err := configOf(env.SyntheticSize)
		if err != nil {
			return nil, generate.Spec{}, nil, err
		}
		arch = decodeSpec(c)
	} else if err := checkExperts(env.ModelPath, env.ModelDesc, func(s string) { fmt.Fprintln(env.Stderr, s) }); err != nil {
		return nil, generate.Spec{}, nil, err
	}
	sess, err := env.Engine.OpenSession(env.ModelPath, nil)
	if err != nil {
		return nil, generate.Spec{}, nil, err
	}
	fail := func(err error) (*generate.Model, generate.Spec, func() error, error) {
		sess.Close()
		return nil, generate.Spec{}, nil, err
	}
	if !env.Synthetic() {
		arch, _ = generate.SpecFrom(sess, arch)
	}
	if err := tokenizer.CheckModelVocab(tok, arch.Vocab); err != nil {
		return fail(fmt.Errorf("mixtral: %w (model %s, tokenizer %s)", err, env.ModelDesc, env.Extra["tokenizer"]))
	}
	m, err := generate.New(sess, arch)
	if err != nil {
		return fail(fmt.Errorf("mixtral: %w (model %s)", err, env.ModelDesc))
	}
	return m, arch, sess.Close, nil
}

// Score is the reference's evaluate-accuracy.py: ROUGE of the OpenOrca
// answers, GSM8K exact match, the MBXP pass rate (programs run in the
// sandbox) and the generated lengths, printed as the script prints them.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	dt, err := llmbench.ScoreDType("mixtral", req.DType)
	if err != nil {
		return nil, err
	}
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	_, ds, err := loadData(req.Data, req.CacheDir, tok, req.Stderr)
	if err != nil {
		return nil, err
	}
	var toolDirs []string
	if v := req.Extra["toolchains"]; v != "" {
		toolDirs = filepath.SplitList(v)
	}
	res, err := scoreLog(ctx, req.Log, ds, tok, dt, toolDirs, req.Stderr)
	if err != nil {
		return nil, err
	}
	var report bytes.Buffer
	res.Report(&report)
	return &spec.Score{Lines: []string{res.String()}, Text: report.String()}, nil
}
