package deepseekr1

// DeepSeek-R1 on remote serving engines (--backend openai or sglang),
// through llmbench's one remote path: the prompts go as the data set's
// tok_input (the chat-templated ids: what the reference's vLLM backend
// runs) where the servers take ids, else as text_input, the user message,
// to /v1/chat/completions (the reference's SGLang backend:
// chat.completions of text_input, the server applying the template); the
// sampling is the reference's (utils/backend_registry.py: temperature 0,
// top_p 1, seed 42; max_tokens 20000). The generated ids are the
// servers' where they return them, else DeepSeek-R1's tokenizer's over
// the streamed text.

import (
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// sampling is the reference's: greedy, top_p 1, seed 42.
var sampling = openai.Sampling{Temperature: 0, TopP: 1, Seed: new(int64(42))}

// openRemote opens the run's remote engines with the data set's prompts
// and max_tokens maxNew.
func openRemote(env *spec.OpenRequest, maxNew int) (*spec.Instance, error) {
	tok, err := loadTokenizer(env.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	set, err := loadData(env.Data, env.CacheDir, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	qsl, err := reasoning.NewQSL(set, env.Count, func(r reasoning.Row) string { return r.TextInput })
	if err != nil {
		return nil, err
	}
	prompt := func(i loadgen.SampleIndex) (openai.Prompt, error) {
		ids, text, err := qsl.Prompt(i)
		return openai.Prompt{IDs: ids, Text: text}, err
	}
	// Generated text holds no special tokens but <think> and </think>
	// (added, not special): they become their ids.
	encode := func(s string) []int32 { return tok.Encode(s, false) }
	s := sampling
	return llmbench.OpenRemote(env, llmbench.RemoteConfig{
		Name: benchmarkName, QSL: qsl, Prompt: prompt, DataPath: set.Path,
		Encode: encode, Chunk: encode,
		ProbeIDs: tok.Encode("Hello", true),
		Vocab:    tokenizer.DeepSeekVocabSize,
		Chat:     true,
		Sampling: &s,
		MaxNew:   maxNew, MaxNewDefault: maxNewTokensDefault,
		EOS: eosID,
	})
}
