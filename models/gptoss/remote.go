package gptoss

// gpt-oss-120b on remote serving engines (--backend sglang, as the
// reference, or openai), through llmbench's one remote path: the prompts
// go as the data set's Harmony token ids (SGLang's input_ids, what the
// reference's backends/sglang_backend.py sends, or /v1/completions'
// prompt), else as the same ids' text with the Harmony markers written
// out, a raw completion (no chat template: the prompt is already the
// rendered conversation); the sampling is generation_config.json's
// (temperature 1, top_k -1, top_p 1), max_tokens the set's. The
// generated ids are the servers' where they return them (output_ids,
// Harmony markers included), else o200k_harmony's over the streamed
// text, with the markers' texts read as their ids.

import (
	"fmt"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// sampling is generation_config.json's.
var sampling = openai.Sampling{Temperature: temperature, TopP: topP, TopK: new(topK)}

// openRemote opens the run's remote engines with the prompts of the
// eval set and max_tokens maxNew.
func openRemote(env *spec.OpenRequest, set string, maxNew int) (*spec.Instance, error) {
	tok, err := loadTokenizer(env.Extra["tokenizer"])
	if err != nil {
		return nil, err
	}
	s, err := loadData(env.Data, set, env.CacheDir, tok, env.Stderr)
	if err != nil {
		return nil, err
	}
	// A server that takes text gets the prompt ids decoded with their
	// special tokens: the Harmony rendering, which it tokenizes back to
	// the same ids.
	text := func(r reasoning.Row) string { return tok.Decode(r.TokInput, tokenizer.DecodeOptions{}) }
	qsl, err := reasoning.NewQSL(s, env.Count, text)
	if err != nil {
		return nil, fmt.Errorf("gpt-oss-120b: %w", err)
	}
	prompt := func(i loadgen.SampleIndex) (openai.Prompt, error) {
		ids, text, err := qsl.Prompt(i)
		return openai.Prompt{IDs: ids, Text: text}, err
	}
	encode := func(s string) []int32 { return tok.Encode(s, false) }
	smp := sampling
	return llmbench.OpenRemote(env, llmbench.RemoteConfig{
		Name: benchmarkName, QSL: qsl, Prompt: prompt, DataPath: s.Path,
		Encode: encode, Chunk: encode,
		ProbeIDs: tok.EncodeOrdinary("Hello"),
		Vocab:    tokenizer.O200kVocabSize,
		Sampling: &smp,
		MaxNew:   maxNew, MaxNewDefault: sets[set].maxNew,
		NoTEST06: true,
	})
}
