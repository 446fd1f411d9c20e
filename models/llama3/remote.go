package llama3

// Llama 3.1 8B on remote serving engines (--backend openai or sglang),
// through llmbench's one remote path: the prompts go as the data set's
// tok_input where the servers take ids (what the reference's SUT_VLLM.py
// runs: TokensPrompt of tok_input), else as the instruction template
// filled with the article, which a server tokenizes with
// <|begin_of_text|> first (download_cnndm.py: tokenizer.encode of the
// same text); the generated ids are the servers' where they return them,
// else the Llama 3.1 tokenizer's over the streamed text.

import (
	"context"
	"fmt"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// openRemote opens the run's remote engines with the data set's prompts
// and max_tokens maxNew.
func openRemote(env *spec.OpenRequest, maxNew int) (*spec.Instance, error) {
	tok, err := loadTokenizer(env.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	dataPath, recs, err := loadData(env.Data, env.ModelName, env.CacheDir, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	n := len(recs)
	if env.Count > 0 {
		n = min(n, env.Count)
	}
	if n == 0 {
		return nil, fmt.Errorf("llama3.1-8b: %s has no records", dataPath)
	}
	qsl, err := harness.NewQSL(harness.QSLConfig[openai.Prompt]{
		Total: n,
		Load: func(_ context.Context, i int) (openai.Prompt, error) {
			return openai.Prompt{IDs: recs[i].TokInput, Text: cnndm.Llama3Prompt(recs[i].Input)}, nil
		},
		Workers: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("llama3.1-8b: %w", err)
	}
	prompt := func(i loadgen.SampleIndex) (openai.Prompt, error) {
		p, ok := qsl.Sample(i)
		if !ok {
			return openai.Prompt{}, fmt.Errorf("llama3.1-8b: sample %d is not loaded", i)
		}
		return p, nil
	}
	return llmbench.OpenRemote(env, llmbench.RemoteConfig{
		Name: "llama3.1-8b", QSL: qsl, Prompt: prompt, DataPath: dataPath,
		// Generated text holds no special tokens: servers skip them.
		Encode:   tok.EncodeOrdinary,
		Chunk:    tok.EncodeOrdinary,
		ProbeIDs: tok.Encode("Hello", true),
		Vocab:    tokenizer.Llama3VocabSize,
		MaxNew:   maxNew, MaxNewDefault: maxNewTokensDefault,
		EOS: tokenizer.Llama3EOTID,
	})
}
