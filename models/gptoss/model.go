// Package gptoss is the gpt-oss-120b benchmark: OpenAI's gpt-oss-120b
// (117B-parameter mixture of experts) answering AIME 2025, GPQA Diamond
// and LiveCodeBench v6 prompts in the Harmony format, sampled at
// temperature 1, scored by exact match with each source's repeats, and
// the performance data set (6,396 prompts at low reasoning effort). It
// runs only over remote serving engines (--backend sglang, as the
// reference, or openai): the data set's Harmony token ids are the
// prompts, sent as ids (SGLang's input_ids, or /v1/completions' prompt)
// where the engine takes them, as their text otherwise.
//
// Reference: mlcommons/inference language/gpt-oss-120b (run_mlperf.py,
// utils/tokenization.py, backends/sglang_backend.py, generation_config.json,
// eval_mlperf_accuracy.py), loadgen mlperf.conf (gpt-oss-120b,
// gpt-oss-120b-interactive), compliance TEST07 and TEST09, and the
// submission checker's v6.1 tables.
package gptoss

// Benchmark facts.
const (
	// benchmarkName and interactiveName are the model names of
	// mlperf.conf: the datacenter Server (TTFT ≤ 3 s, TPOT ≤ 80 ms) and
	// Offline, and the interactive Server (TTFT ≤ 2 s, TPOT ≤ 15 ms).
	benchmarkName   = "gpt-oss-120b"
	interactiveName = "gpt-oss-120b-interactive"
	// checkerID is the submission checker's model id (v6.1).
	checkerID = "gpt-oss-120b"
	// maxNewTokensAccuracy and maxNewTokensPerformance are the reference's
	// max_output_len of accuracy runs (generation_config.json: 32768) and
	// of performance runs and the compliance tests (10240; README).
	maxNewTokensAccuracy    = 32768
	maxNewTokensPerformance = 10240
	// temperature, topP and topK are generation_config.json's sampling:
	// temperature 1, no nucleus or top-k cut (top_k -1: disabled).
	temperature = 1.0
	topP        = 1.0
	topK        = -1
	// conversationDate is the Harmony system message's current date in
	// the reference's prompts (harmonize_inputs.py).
	conversationDate = "2025-09-30"
	// modelRevision is the openai/gpt-oss-120b revision the reference
	// pins.
	modelRevision = "b5c939de8f754692c1647ca79fbf85e8c1e70f8a"
)

// The data sets of the reference's download (gpt-oss-data.uri), by set:
// accuracy (high effort, 4,395 rows: AIME 2025 ×8, GPQA Diamond ×5,
// LiveCodeBench v6 ×3), performance (low effort, 6,396 rows; TEST09's
// reference output length 1278.2 tokens) and TEST07's GPQA set (high
// effort, 990 rows).
const (
	setAccuracy    = "acc"
	setPerformance = "perf"
	setCompliance  = "gpqa-compliance"

	accFile        = "acc/acc_eval_inputs.parquet"
	perfFile       = "perf/perf_eval_ref.parquet"
	complianceFile = "acc/acc_eval_compliance_gpqa.parquet"

	accRows        = 4395
	perfRows       = 6396
	complianceRows = 990
)

// sets describes each set: its file under the data folder, its rows and
// the reasoning effort its prompts ask for.
var sets = map[string]struct {
	file   string
	rows   int
	effort string
	maxNew int
}{
	setAccuracy:    {accFile, accRows, "high", maxNewTokensAccuracy},
	setPerformance: {perfFile, perfRows, "low", maxNewTokensPerformance},
	setCompliance:  {complianceFile, complianceRows, "high", maxNewTokensPerformance},
}
