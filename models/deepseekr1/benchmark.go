package deepseekr1

// The deepseek-r1 benchmark's descriptor and driver, as the benchmark
// registry runs them (see package benchmark/spec).

import (
	"context"
	"slices"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

func init() {
	spec.Register(descriptor)
	spec.RegisterDataset(dataset)
}

// descriptor is DeepSeek-R1 on the MLPerf reasoning ensemble as the
// registry runs it: over remote serving engines only, greedy, at most
// 20,000 new tokens. --model-name picks the variant: deepseek-r1
// (Offline, Server with TTFT ≤ 2 s, TPOT ≤ 80 ms) or deepseek-r1-interactive
// (Server with TTFT ≤ 1.5 s, TPOT ≤ 15 ms).
var descriptor = &spec.Benchmark{
	Name:       "deepseek-r1",
	Summary:    "DeepSeek-R1 on the MLPerf reasoning ensemble (AIME, MATH500, GPQA, MMLU-Pro, LiveCodeBench), greedy up to 20000 tokens, exact match and tokens per sample; over serving engines only",
	ConfNames:  []string{benchmarkName, interactiveName},
	CheckerIDs: []string{checkerID},
	Scenarios:  []loadgen.Scenario{loadgen.Offline, loadgen.Server},
	Dataset:    "deepseek-r1",
	Options: []spec.Option{tokenizerOption,
		newTokens.Option(),
		{Name: "lcb-problems", Usage: "folder of the LiveCodeBench problems (a copy of the Hugging Face data set livecodebench/code_generation_lite; release_v1's test.jsonl) whose tests the scorer runs the generated programs on in the code sandbox (default: code_generation_lite beside the data set file, where the synthetic data set writes its own)"}},
	RemoteOnly: "DeepSeek-R1 is a 671B-parameter mixture of experts that no engine of this suite runs; its reference drives vLLM or SGLang servers",
	LogShape:   &accuracy.LogShape{Benchmark: benchmarkName, DType: accuracy.Int32, MinElems: 1, MaxValue: tokenizer.DeepSeekVocabSize},
	// TEST06 in the v6.1 rules (the checker's models_TEST06).
	Compliance: []string{"TEST06"},
	EOS:        eosID,
	Driver:     driver{},
}

// variantScenarios are the scenarios of each model name (the submission
// checker's v6.1 tables: Offline required, Server and Interactive
// optional; Interactive is the -interactive model name's Server).
var variantScenarios = map[string][]loadgen.Scenario{
	benchmarkName:   {loadgen.Offline, loadgen.Server},
	interactiveName: {loadgen.Server},
}

// newTokens is --max-new-tokens.
var newTokens = llmbench.NewTokens{Bench: "deepseek-r1", Default: maxNewTokensDefault, Min: 2, Max: 1 << 20, Why: llmbench.TokenLatencyMin}

// driver is the deepseek-r1 benchmark's spec.Driver.
type driver struct{}

// CheckOptions implements spec.OptionChecker: --max-new-tokens and the
// scenarios of the chosen variant.
func (driver) CheckOptions(o *spec.RunOptions) error {
	if _, err := newTokens.Parse(o.Extra); err != nil {
		return err
	}
	if sc, ok := variantScenarios[o.ModelName]; ok && !slices.Contains(sc, o.Scenario) {
		return spec.UsageError("deepseek-r1: --model-name %s runs the Server scenario only (the interactive latency bounds), not %s", o.ModelName, o.Scenario)
	}
	return nil
}

// Open opens the data set and the remote engine's SUT.
func (driver) Open(ctx context.Context, env *spec.OpenRequest) (*spec.Instance, error) {
	if env.Backend == "kserve" {
		return nil, spec.UsageError("deepseek-r1: --backend kserve serves tensor models; DeepSeek-R1 runs behind an LLM serving engine (--backend openai or sglang)")
	}
	maxNew, err := newTokens.Parse(env.Extra)
	if err != nil {
		return nil, err
	}
	return openRemote(env, maxNew)
}

// Score is the reference's eval_accuracy.py (process_mlperf_log_accuracy)
// on the accuracy log: the ids of each qsl_idx decoded with
// skip_special_tokens, scored per source family, exact_match and
// tokens_per_sample.
func (driver) Score(ctx context.Context, req *spec.ScoreRequest) (*spec.Score, error) {
	tok, err := loadTokenizer(req.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	set, err := loadData(req.Data, req.CacheDir, tok, req.Stderr)
	if err != nil {
		return nil, err
	}
	return scoreLog(ctx, req, set, tok)
}
