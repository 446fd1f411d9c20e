package llama3

import (
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// Benchmark facts (mlcommons/inference language/llama3.1-8b: main.py,
// SUT_VLLM.py, evaluation.py; loadgen mlperf.conf; the submission
// checker's constants).
const (
	// Name, EdgeName and InteractiveName are the model names of
	// mlperf.conf: datacenter (Offline, Server with TTFT ≤ 2 s and TPOT ≤
	// 100 ms), edge (5000 samples; SingleStream, Offline) and the
	// interactive Server (TTFT ≤ 500 ms, TPOT ≤ 30 ms).
	Name            = "llama3_1-8b"
	EdgeName        = "llama3_1-8b-edge"
	InteractiveName = "llama3_1-8b-interactive"
	// CheckerID and EdgeCheckerID are the submission checker's model ids.
	CheckerID     = "llama3.1-8b"
	EdgeCheckerID = "llama3.1-8b-edge"
	// MaxNewTokens and MinNewTokens are SUT_VLLM.py's sampling parameters
	// (max_tokens 128, min_tokens 1, temperature 0).
	MaxNewTokens = 128
	MinNewTokens = 1
	// DatacenterSamples and EdgeSamples are the data sets' sizes (and
	// mlperf.conf's performance_sample_count_override).
	DatacenterSamples = 13368
	EdgeSamples       = 5000
	// EndOfText and EndOfMessage are the stop ids of
	// Llama-3.1-8B-Instruct's generation_config.json besides <|eot_id|>.
	EndOfText    = 128001
	EndOfMessage = 128008
)

// Generation is the reference's decoding: greedy, at most 128 new tokens,
// ending on any of generation_config.json's eos_token_id (128001, 128008,
// 128009: vLLM adds them to the stop ids), which are masked for the first
// token (min_tokens 1) and kept in the output when produced.
func Generation() sample.GreedyConfig {
	return sample.GreedyConfig{EOS: tokenizer.Llama3EOTID, MoreEOS: []int32{EndOfText, EndOfMessage},
		MinNewTokens: MinNewTokens, MaxNewTokens: MaxNewTokens}
}
