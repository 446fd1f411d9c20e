package llama3

// The llama3.1-8b benchmark's descriptor and driver, as the benchmark
// registry runs them (see package benchmark/spec).

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(cnndmLlama3)
}

// tokenizerOption is --tokenizer of run, perf, accuracy, serve and the
// data set commands.
var tokenizerOption = spec.Option{Name: "tokenizer", Default: spec.DepsPath("llama3"), Deps: "llama3/tokenizer.json",
	Usage: "folder of the Llama 3.1 tokenizer.json (make setup installs it; a Llama-3.1-8B-Instruct folder works too): decodes for the score, builds the synthetic data, checks the model's vocabulary"}

// defaultBatch is the number of sequences decoded together when --batch
// is not given.
const defaultBatch = 8

// descriptor is Llama 3.1 8B Instruct on CNN-DailyMail as the registry
// runs it: greedy decoding of at most 128 tokens with continuous batching
// as its own SUT. --model-name picks the variant: llama3_1-8b (datacenter:
// Offline, Server), llama3_1-8b-interactive (Server with TTFT ≤ 500 ms and
// TPOT ≤ 30 ms) or llama3_1-8b-edge (SingleStream, Offline on the
// 5000-sample subset).
var descriptor = &spec.Benchmark{
	Name:       "llama3.1-8b",
	Summary:    "Llama 3.1 8B Instruct (CNN-DailyMail summaries, greedy 128 tokens, continuous batching, ROUGE); datacenter, edge and interactive",
	ConfNames:  []string{benchmarkName, edgeName, interactiveName},
	CheckerIDs: []string{checkerID, edgeCheckerID},
	Scenarios:  []loadgen.Scenario{loadgen.Offline, loadgen.Server, loadgen.SingleStream},
	Dataset:    "cnndm-llama3",
	// The default model is the tiny synthetic one: the full-size
	// synthetic 8B is 32 GB of float32 weights.
	Model: spec.Models{
		Default: "synthetic:" + sizeTiny,
		Sizes: []spec.Size{{Name: size8B, Summary: "Llama-3.1-8B-Instruct's shape, 32 GB of float32"},
			{Name: sizeTiny, Summary: "2 layers of width 64, the full vocabulary"}},
		Seed:      archSeed,
		BuildSize: sizeTiny,
	},
	Batch: spec.Batches{loadgen.Server: {CPU: defaultBatch}, loadgen.Offline: {CPU: defaultBatch}, loadgen.SingleStream: {CPU: 1}},
	Options: []spec.Option{tokenizerOption,
		newTokens.Option()},
	LogShape: &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Int32, MinElems: 1, MaxValue: tokenizer.Llama3VocabSize},
	// --workers and --cache are not used: one decode loop batches every
	// running sequence (--batch), and the prompts are tokenized already.
	Compliance: []string{"TEST06"},
	Dir:        "llama3",
	EOS:        tokenizer.Llama3EOTID,
	Driver:     driver{},
}

// variantScenarios are the scenarios of each model name in the v6.1 rules
// (the submission checker's tables).
var variantScenarios = map[string][]loadgen.Scenario{
	benchmarkName:   {loadgen.Offline, loadgen.Server},
	interactiveName: {loadgen.Server},
	edgeName:        {loadgen.SingleStream, loadgen.Offline},
}

// newTokens is --max-new-tokens.
var newTokens = llmbench.NewTokens{Bench: "llama3.1-8b", Default: maxNewTokensDefault, Min: 2, Why: llmbench.TokenLatencyMin}

// driver is the llama3.1-8b benchmark's spec.Driver.
type driver struct{}

// BuildModel implements spec.ModelBuilder.
func (driver) BuildModel(path, size string, seed uint64) error { return buildFile(path, size, seed) }

// BuildGGUF implements spec.GGUFBuilder: the synthetic model as a llama.cpp
// GGUF with the Llama 3.1 vocabulary of --tokenizer.
func (driver) BuildGGUF(path, size string, seed uint64, e spec.Extra) error {
	tok, err := loadTokenizer(e["tokenizer"])
	if err != nil {
		return err
	}
	return buildGGUFFile(path, size, seed, tok)
}

// CheckOptions implements spec.OptionChecker: --max-new-tokens, and the
// scenarios of the chosen variant.
func (driver) CheckOptions(o *spec.RunOptions) error {
	if _, err := newTokens.Parse(o.Extra); err != nil {
		return err
	}
	if sc, ok := variantScenarios[o.ModelName]; ok && !slices.Contains(sc, o.Scenario) {
		var names []string
		for _, s := range sc {
			names = append(names, s.String())
		}
		return spec.UsageError("llama3.1-8b: --model-name %s runs %s, not %s (datacenter: %s Offline and Server; interactive: %s Server; edge: %s SingleStream and Offline)",
			o.ModelName, strings.Join(names, " and "), o.Scenario, benchmarkName, interactiveName, edgeName)
	}
	return nil
}

// Open opens the data set and the model, checks the model's vocabulary
// against the tokenizer and starts the continuous-batching SUT.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (inst *spec.Instance, err error) {
	llmbench.NoteUnusedCache(env, "llama3.1-8b")
	maxNew, err := newTokens.Parse(env.Extra)
	if err != nil {
		return nil, err
	}
	switch env.Backend {
	case "openai", "sglang":
		return openRemote(env, maxNew)
	case "kserve":
		return nil, spec.UsageError("llama3.1-8b: --backend kserve serves tensor models; a decoder runs remotely over --backend openai or sglang")
	}
	tok, err := loadTokenizer(env.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	dataPath, recs, err := loadData(env.Data, env.ModelName, env.CacheDir, tok, env.Stderr)
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
	qsl, err := newQSL(recs, env.Count, arch, maxNew, dataPath)
	if err != nil {
		return nil, err
	}
	gen := generation()
	gen.MaxNewTokens = maxNew
	newTokens.NoteNonCompliant(env.Stderr, maxNew)
	bench, err := llmbench.NewLocal(ctx, m, llmbench.LocalConfig{Prompts: qsl.Prompt, MaxBatch: env.Batch, Generation: gen, Offline: env.Scenario == loadgen.Offline})
	if err != nil {
		return nil, fmt.Errorf("llama3.1-8b: %w", err)
	}
	closers.Add(bench.Close)
	raw, stopRaw, err := llmbench.Continuous(m, qsl.Prompt, gen, env.Batch)
	if err != nil {
		return nil, fmt.Errorf("llama3.1-8b: %w", err)
	}
	closers.Add(stopRaw)
	return &spec.Instance{
		SUT: bench,
		QSL: qsl,
		Describe: fmt.Sprintf("llama3.1-8b: %s %s (%s), model %s (%d layers, %d kv heads × %d, vocabulary %d), %s backend, continuous batching of %d, %d samples in %s",
			env.Scenario, env.Mode, env.ModelName, env.Model, arch.Layers, arch.KVHeads, arch.HeadDim, arch.Vocab, env.Backend, env.Batch, qsl.TotalSampleCount(), dataPath),
		Raw:      raw,
		RawWhole: true,
		After:    llmbench.After(env, bench, "llama3.1-8b", "generated tokens", true, tokenizer.Llama3EOTID),
		Close:    closers.Close,
	}, nil
}

// specFromSession returns the decode-loop spec of a model file's session:
// layers, kv heads, head dimension and vocabulary from its I/O, a
// dimension the export leaves symbolic taking the 8B value; 131072
// positions, <|eot_id|> padding.
func specFromSession(s backend.Session) generate.Spec {
	sp, _ := generate.SpecFrom(s, decodeSpec(configs[size8B]))
	return sp
}

// loadDecoder opens the run's model file as a greedy decoder and checks
// its vocabulary against the tokenizer. Close the returned func after use.
func loadDecoder(env *spec.OpenRequest, tok *tokenizer.Llama3) (*generate.Model, generate.Spec, func() error, error) {
	sess, err := env.Engine.OpenSession(env.ModelPath, nil)
	if err != nil {
		return nil, generate.Spec{}, nil, err
	}
	fail := func(err error) (*generate.Model, generate.Spec, func() error, error) {
		sess.Close()
		return nil, generate.Spec{}, nil, err
	}
	arch := specFromSession(sess)
	if env.Synthetic() {
		c, err := configOf(env.SyntheticSize)
		if err != nil {
			return fail(err)
		}
		arch = decodeSpec(c)
	}
	if err := tokenizer.CheckModelVocab(tok, arch.Vocab); err != nil {
		return fail(fmt.Errorf("llama3.1-8b: %w (model %s, tokenizer %s)", err, env.ModelDesc, env.Extra["tokenizer"]))
	}
	m, err := generate.New(sess, arch)
	if err != nil {
		return fail(fmt.Errorf("llama3.1-8b: %w (model %s)", err, env.ModelDesc))
	}
	return m, arch, sess.Close, nil
}

// Score is the reference's evaluation.py: ROUGE of the decoded outputs
// against the highlights, gen_len and gen_num.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	dt, err := llmbench.ScoreDType("llama3.1-8b", req.DType)
	if err != nil {
		return nil, err
	}
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	_, recs, err := loadData(req.Data, req.ModelName, req.CacheDir, tok, req.Stderr)
	if err != nil {
		return nil, err
	}
	targets := make([]string, len(recs))
	for i, r := range recs {
		targets[i] = r.Output
	}
	r, err := scoreLog(req.Log, targets, tok, dt)
	if err != nil {
		return nil, err
	}
	line := resultLine(r)
	fmt.Fprintf(req.Stderr, "llama3.1-8b: %d generated ids, %.1f per sample (evaluation.py does not print them)\n", r.GenTokLen, float64(r.GenTokLen)/float64(r.GenNum))
	return &spec.Score{Lines: []string{line}, Text: "\nResults\n\n" + line + "\n"}, nil
}
