// Package mixtral is the MLPerf Mixtral-8x7B benchmark (datacenter:
// Offline and Server) on the 15,000 prompts of OpenOrca, GSM8K and MBXP:
// the synthetic-weights sparse mixture-of-experts model of llm/llama at
// Mixtral-8x7B-Instruct-v0.1's shape, greedy decoding of up to 1024 new
// tokens by llm/generate with the reference SUT's post-processing, and
// evaluate-accuracy.py's scores (accuracy/mixtraleval: ROUGE, GSM8K, MBXP
// run in the code sandbox, tokens per sample).
package mixtral

import (
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// Benchmark facts (mlcommons/inference language/mixtral-8x7b: SUT.py,
// dataset.py, evaluate-accuracy.py; loadgen mlperf.conf; the submission
// checker's model list).
const (
	// benchmarkName is the model name of mlperf.conf (Server: TTFT ≤ 2 s,
	// TPOT ≤ 200 ms) and checkerID the submission checker's.
	benchmarkName = "mixtral-8x7b"
	checkerID     = "mixtral-8x7b"
	// maxNewTokensDefault and minNewTokens are SUT.py's gen_kwargs
	// (max_new_tokens 1024, min_new_tokens 2 since v5.0, greedy).
	maxNewTokensDefault = 1024
	minNewTokens        = 2
	// numExperts and expertsPerToken are Mixtral-8x7B's
	// num_local_experts and num_experts_per_tok.
	numExperts      = 8
	expertsPerToken = 2
)

// generation is the reference's decoding: greedy, at least 2 and at most
// 1024 new tokens, ending on </s> (2), which is masked for the first two
// tokens and kept in the output when produced (the SUT's post-processing
// then drops it, see trimSUT). SUT.py passes no stop sequence to
// generate: MBXP answers are cut after "\n```\n" only afterwards.
func generation() sample.GreedyConfig {
	return sample.GreedyConfig{EOS: tokenizer.MistralEOSID, MinNewTokens: minNewTokens, MaxNewTokens: maxNewTokensDefault}
}
