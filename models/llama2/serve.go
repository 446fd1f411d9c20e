package llama2

// The llama2 model as a text generator for `mlperf serve llama2`: OpenAI
// completions over the local greedy decoder with continuous batching.

import (
	"context"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai"
)

// promptIDs returns the ids a server runs for a prompt text: BOS, then a
// BOS for each "<s>" the text starts with (the chat template's, read as
// the special token, as llama.cpp does), then the rest encoded. For an
// OpenOrca `input` text that is the row's tok_input less its trailing
// 29871.
func promptIDs(t *tokenizer.Llama, text string) []int32 {
	ids := []int32{tokenizer.LlamaBOSID}
	for strings.HasPrefix(text, "<s>") {
		ids = append(ids, tokenizer.LlamaBOSID)
		text = text[len("<s>"):]
	}
	return append(ids, t.Encode(text, false)...)
}

// textTokenizer is the Llama 2 tokenizer as llmbench.Generator reads
// and writes text.
type textTokenizer struct{ *tokenizer.Llama }

func (t textTokenizer) PromptIDs(text string) []int32 { return promptIDs(t.Llama, text) }

// ChatIDs is the Llama 2 chat format: one system and one user message as
// the reference's processorca.py formats an OpenOrca row
// ("<s>[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{user} [/INST]", or without
// the system block), so that a chat request of a row's system prompt and
// question runs its tok_input; further turns as Meta's chat format
// (mlcommons/inference language/llama2-70b/processorca.py;
// meta-llama/llama generation.py): "[INST] {user} [/INST] {answer} </s>",
// each turn after BOS.
func (t textTokenizer) ChatIDs(msgs []openai.Message) []int32 {
	system := ""
	if len(msgs) > 0 && msgs[0].Role == "system" {
		system, msgs = msgs[0].Content, msgs[1:]
	}
	var ids []int32
	for i := 0; i < len(msgs); i++ {
		sys := ""
		if i == 0 {
			sys = system
		}
		turn := promptIDs(t.Llama, tokenizer.FormatLlama2Prompt(sys, msgs[i].Content))
		if i > 0 {
			turn = turn[1:] // promptIDs' BOS and the template's: one per later turn
		}
		ids = append(ids, turn...)
		if i+1 < len(msgs) && msgs[i+1].Role == "assistant" {
			i++
			ids = append(ids, t.Encode(" "+msgs[i].Content+" ", false)...)
			ids = append(ids, tokenizer.LlamaEOSID)
		}
	}
	return ids
}

func (t textTokenizer) AppendText(dst []byte, id int32) []byte { return t.AppendPieceBytes(dst, id) }

// OpenGenerator implements spec.GeneratorOpener: the run's model as a
// text generator, batching --batch sequences.
func (driver) OpenGenerator(ctx context.Context, env *spec.OpenRequest) (openai.Generator, func() error, error) {
	maxNew, err := newTokens.Parse(env.Extra)
	if err != nil {
		return nil, nil, err
	}
	tok := lazyTokenizer(env.Extra["tokenizer"])
	t, err := tok()
	if err != nil {
		return nil, nil, err
	}
	m, _, closeModel, err := loadDecoder(env, tok, true)
	if err != nil {
		return nil, nil, err
	}
	gen := Generation()
	gen.MaxNewTokens = maxNew
	return llmbench.ServeModel(ctx, "llama2", m, closeModel, textTokenizer{t}, env.Batch, gen)
}
