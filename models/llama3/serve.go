package llama3

// The model as a text generator for `mlperf serve llama3.1-8b`: OpenAI
// completions over the local greedy decoder with continuous batching.

import (
	"context"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai"
)

// textTokenizer is the Llama 3.1 tokenizer as llmbench.Generator reads
// and writes text: a prompt gets <|begin_of_text|> first and its special
// tokens parsed, as vLLM and llama.cpp tokenize one; special tokens are
// not written back.
type textTokenizer struct{ *tokenizer.Llama3 }

func (t textTokenizer) PromptIDs(text string) []int32 { return t.Encode(text, true) }

// ChatIDs is the chat template of the Llama 3 tokenizer_config.json that
// make setup installs: <|begin_of_text|>, then each message as
// "<|start_header_id|>{role}<|end_header_id|>\n\n{content, trimmed}<|eot_id|>",
// then the assistant's header.
func (t textTokenizer) ChatIDs(msgs []openai.Message) []int32 {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("<|start_header_id|>" + m.Role + "<|end_header_id|>\n\n" + strings.TrimSpace(m.Content) + "<|eot_id|>")
	}
	b.WriteString("<|start_header_id|>assistant<|end_header_id|>\n\n")
	return t.Encode(b.String(), true)
}

func (t textTokenizer) AppendText(dst []byte, id int32) []byte {
	return t.AppendTokenBytes(dst, id, true)
}

// OpenGenerator implements spec.GeneratorOpener: the run's model as a
// text generator, batching --batch sequences, stopping on the reference's
// end-of-sequence ids.
func (driver) OpenGenerator(ctx context.Context, env *spec.OpenRequest) (openai.Generator, func() error, error) {
	maxNew, err := newTokens.Parse(env.Extra)
	if err != nil {
		return nil, nil, err
	}
	tok, err := loadTokenizer(env.Extra["tokenizer"])
	if err != nil {
		return nil, nil, err
	}
	m, _, closeModel, err := loadDecoder(env, tok)
	if err != nil {
		return nil, nil, err
	}
	gen := generation()
	gen.MaxNewTokens = maxNew
	return llmbench.ServeModel(ctx, "llama3.1-8b", m, closeModel, textTokenizer{tok}, env.Batch, gen)
}
