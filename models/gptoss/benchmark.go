package gptoss

// The gpt-oss-120b benchmark's descriptor and driver, as the benchmark
// registry runs them (see package benchmark/spec).

import (
	"context"
	"slices"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
}

// descriptor is gpt-oss-120b on the MLPerf reasoning sets as the registry
// runs it: over remote serving engines only, sampled at temperature 1,
// up to 32768 new tokens in accuracy runs and 10240 in performance runs.
// --model-name picks the variant: gpt-oss-120b (Offline, Server with
// TTFT ≤ 3 s, TPOT ≤ 80 ms) or gpt-oss-120b-interactive (Server with
// TTFT ≤ 2 s, TPOT ≤ 15 ms).
var descriptor = &spec.Benchmark{
	Name:       "gpt-oss-120b",
	Summary:    "gpt-oss-120b on AIME 2025, GPQA Diamond and LiveCodeBench v6 in the Harmony format (accuracy set at high effort, performance set at low), exact match with repeats; over serving engines only",
	ConfNames:  []string{benchmarkName, interactiveName},
	CheckerIDs: []string{checkerID},
	Scenarios:  []loadgen.Scenario{loadgen.Offline, loadgen.Server},
	Dataset:    "gpt-oss-120b",
	Options: []spec.Option{tokenizerOption, evalSetOption,
		{Name: "max-new-tokens", Usage: "most tokens generated per sample (default: the set's reference value, 32768 for acc and 10240 for perf and gpqa-compliance; another is not a compliant run)"},
		{Name: "lcb-problems", Usage: "folder of the LiveCodeBench problems (a copy of the Hugging Face data set livecodebench/code_generation_lite; release_v6's test.jsonl to test6.jsonl) whose tests the scorer runs the generated programs on in the code sandbox (default: code_generation_lite beside the set's file or one folder up, where the synthetic sets write their own)"}},
	RemoteOnly: "gpt-oss-120b is a 117B-parameter mixture of experts that no engine of this suite runs; its reference drives SGLang servers",
	LogShape:   &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Int32, MinElems: 1, MaxValue: tokenizer.O200kVocabSize},
	// TEST07 and TEST09 in the v6.1 rules (the checker's models_TEST07,
	// models_TEST09).
	Compliance: []string{"TEST07", "TEST09"},
	Dir:        "gptoss",
	Driver:     driver{},
}

// variantScenarios are the scenarios of each model name (the submission
// checker's v6.1 tables: Offline required, Server and Interactive
// optional; Interactive is the -interactive model name's Server).
var variantScenarios = map[string][]loadgen.Scenario{
	benchmarkName:   {loadgen.Offline, loadgen.Server},
	interactiveName: {loadgen.Server},
}

// driver is the gpt-oss-120b benchmark's spec.Driver.
type driver struct{}

// CheckOptions implements spec.OptionChecker: --eval-set,
// --max-new-tokens and the scenarios of the chosen variant.
func (driver) CheckOptions(o *spec.RunOptions) error {
	set, err := evalSet(o.Extra, o.Mode)
	if err != nil {
		return err
	}
	if _, err := maxNewTokens(o.Extra, set); err != nil {
		return err
	}
	if sc, ok := variantScenarios[o.ModelName]; ok && !slices.Contains(sc, o.Scenario) {
		return spec.UsageError("gpt-oss-120b: --model-name %s runs the Server scenario only (the interactive latency bounds), not %s", o.ModelName, o.Scenario)
	}
	return nil
}

// Open opens the data set and the remote engine's SUT.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (*spec.Instance, error) {
	if env.Backend == "kserve" {
		return nil, spec.UsageError("gpt-oss-120b: --backend kserve serves tensor models; gpt-oss-120b runs behind an LLM serving engine (--backend sglang or openai)")
	}
	set, err := evalSet(env.Extra, env.Mode)
	if err != nil {
		return nil, err
	}
	maxNew, err := maxNewTokens(env.Extra, set)
	if err != nil {
		return nil, err
	}
	return openRemote(env, set, maxNew)
}

// Score is the reference's eval_mlperf_accuracy.py on the accuracy log:
// every entry's ids decoded with their special tokens, scored per source
// with its repeats.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	set, err := evalSet(req.Extra, loadgen.AccuracyOnly)
	if err != nil {
		return nil, err
	}
	s, err := loadData(req.Data, set, req.CacheDir, tok, req.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreLog(ctx, req, s, tok)
}
