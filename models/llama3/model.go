package llama3

import (
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// Benchmark facts (mlcommons/inference language/llama3.1-8b: main.py,
// SUT_VLLM.py, evaluation.py; loadgen mlperf.conf; the submission
// checker's constants).
const (
	// benchmarkName, edgeName and interactiveName are the model names of
	// mlperf.conf: datacenter (Offline, Server with TTFT ≤ 2 s and TPOT ≤
	// 100 ms), edge (5000 samples; SingleStream, Offline) and the
	// interactive Server (TTFT ≤ 500 ms, TPOT ≤ 30 ms).
	benchmarkName   = "llama3_1-8b"
	edgeName        = "llama3_1-8b-edge"
	interactiveName = "llama3_1-8b-interactive"
	// checkerID and edgeCheckerID are the submission checker's model ids.
	checkerID     = "llama3.1-8b"
	edgeCheckerID = "llama3.1-8b-edge"
	// maxNewTokensDefault and minNewTokens are SUT_VLLM.py's sampling
	// parameters (max_tokens 128, min_tokens 1, temperature 0).
	maxNewTokensDefault = 128
	minNewTokens        = 1
	// endOfText and endOfMessage are the stop ids of
	// Llama-3.1-8B-Instruct's generation_config.json besides <|eot_id|>.
	endOfText    = 128001
	endOfMessage = 128008
)

// generation is the reference's decoding: greedy, at most 128 new tokens,
// ending on any of generation_config.json's eos_token_id (128001, 128008,
// 128009: vLLM adds them to the stop ids), which are masked for the first
// token (min_tokens 1) and kept in the output when produced.
func generation() sample.GreedyConfig {
	return sample.GreedyConfig{EOS: tokenizer.Llama3EOTID, MoreEOS: []int32{endOfText, endOfMessage},
		MinNewTokens: minNewTokens, MaxNewTokens: maxNewTokensDefault}
}
