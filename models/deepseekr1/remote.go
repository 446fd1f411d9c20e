package deepseekr1

// DeepSeek-R1 on remote serving engines (--backend openai or sglang),
// through llmbench's one remote path: the prompts go as the data set's
// tok_input (the chat-templated ids: what the reference's vLLM backend
// runs) where the servers take ids, else as text_input, the user message,
// to /v1/chat/completions (the reference's SGLang backend:
// chat.completions of text_input, the server applying the template); the
// sampling is the reference's (utils/backend_registry.py: temperature 0,
// top_p 1, seed 42; max_tokens 20000). The generated ids are the
// servers' where they return them, else, as the reference's SGLang
// backend takes them, DeepSeek-R1's tokenizer's over the whole streamed
// text with BOS first (textIDs).

import (
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// textIDs are the ids of a response a server returned as text only: the
// reference's SGLang backend (the one that sends text_input as a chat
// message, as our text prompt form does) takes
// tokenizer.encode(generated_text) of the whole text, with the
// tokenizer's add_special_tokens default — DeepSeek-R1's
// tokenizer_config.json sets add_bos_token, so BOS (id 0) comes first —
// for the response to LoadGen (backends/sglang_backend.py, and
// mlperf/server_sut.py for the first token and the final response alike),
// and eval_accuracy.py's tokens_per_sample is the mean length of those
// ids. Where a server returns ids (the token-id prompt form, the
// reference's vLLM backend) they are the response as they are.
// Generated text holds no special tokens but <think> and </think> (added,
// not special): they become their ids.
func textIDs(tok *tokenizer.DeepSeek) func(string) []int32 {
	return func(s string) []int32 { return tok.Encode(s, true) }
}

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
	s := sampling
	return llmbench.OpenRemote(env, llmbench.RemoteConfig{
		Name: benchmarkName, QSL: qsl, Prompt: prompt, DataPath: set.Path,
		Encode:   textIDs(tok),
		ProbeIDs: tok.Encode("Hello", true),
		Vocab:    tokenizer.DeepSeekVocabSize,
		Chat:     true,
		Sampling: &s,
		MaxNew:   maxNew, MaxNewDefault: maxNewTokensDefault,
		EOS: eosID,
	})
}
