// Package deepseekr1 is the deepseek-r1 benchmark: DeepSeek-R1 (671B,
// mixture of experts) answering the MLPerf reasoning ensemble (AIME,
// MATH500, GPQA, MMLU-Pro, LiveCodeBench: 4,388 prompts) with up to
// 20,000 generated tokens, scored by exact match per source and tokens
// per sample. Nobody runs the model on a CPU, so the benchmark runs only
// over remote serving engines (--backend openai or sglang): the prompts
// go as the reference's chat-templated token ids where the engine takes
// them, as the user message of /v1/chat/completions otherwise.
//
// Reference: mlcommons/inference language/deepseek-r1 (run_mlperf.py,
// utils/tokenization.py, utils/backend_registry.py, eval_accuracy.py),
// loadgen mlperf.conf (deepseek-r1, deepseek-r1-interactive) and the
// submission checker's v6.1 tables.
package deepseekr1

import "github.com/mlperf-go/inference/llm/tokenizer"

// Benchmark facts.
const (
	// benchmarkName and interactiveName are the model names of
	// mlperf.conf: the datacenter Server (TTFT ≤ 2 s, TPOT ≤ 80 ms) and
	// Offline, and the interactive Server (TTFT ≤ 1.5 s, TPOT ≤ 15 ms).
	benchmarkName   = "deepseek-r1"
	interactiveName = "deepseek-r1-interactive"
	// checkerID is the submission checker's model id (v6.1).
	checkerID = "deepseek-r1"
	// maxNewTokensDefault is the reference's MAX_OSL (20 × 1000,
	// utils/backend_registry.py): max_tokens of every request.
	maxNewTokensDefault = 20000
	// maxInputTokens is the reference's MAX_ISL + MAX_TEMPLATE_TOKS
	// (3136 + 4): no prompt of the data set is longer.
	maxInputTokens = 3140
	// eosID ends generation (<｜end▁of▁sentence｜>); TEST06 counts it.
	eosID = tokenizer.DeepSeekEOSID
	// dataFileName is the reference's data set file, dataRows its rows.
	dataFileName = "mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl"
	dataRows     = 4388
	// calibrationFileName is the calibration set the same download brings.
	calibrationFileName = "mlperf_deepseek_r1_calibration_dataset_500_fp8_eval.pkl"
	// modelRevision is the deepseek-ai/DeepSeek-R1 revision the reference
	// pins (tokenizer, chat template, weights).
	modelRevision = "56d4cbbb4d29f4355bab4b9a39ccb717a14ad5ad"
)

// The reference's sampling (utils/backend_registry.py: vllm and sglang):
// temperature 0 (greedy), top_p 1, seed 42, max_tokens 20000.
