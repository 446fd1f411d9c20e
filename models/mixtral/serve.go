package mixtral

// The model as a text generator for `mlperf serve mixtral`: OpenAI
// completions over the local greedy decoder with continuous batching.

import (
	"context"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai"
)

// textTokenizer is the Mixtral tokenizer as llmbench.Generator reads and
// writes text: a prompt gets BOS first and its special tokens ("<s>",
// "</s>") read as such, as vLLM tokenizes one, so a data set row's
// `input` runs as its tok_input; special tokens are not written back.
type textTokenizer struct{ *tokenizer.Llama }

func (t textTokenizer) PromptIDs(text string) []int32 { return t.EncodeSpecial(text, true) }

// ChatIDs is Mixtral-8x7B-Instruct-v0.1's chat template
// (tokenizer_config.json): <s>, then each user message as
// "[INST] {content} [/INST]" and each assistant message as
// "{content}</s>". That template refuses a system message; here one is
// joined to the next user message with a blank line, as vLLM's Mistral
// templates do, rather than failing the request.
func (t textTokenizer) ChatIDs(msgs []openai.Message) []int32 {
	var b strings.Builder
	system := ""
	for _, m := range msgs {
		switch m.Role {
		case "system":
			system += m.Content + "\n\n"
		case "assistant":
			b.WriteString(m.Content + "</s>")
		default:
			b.WriteString("[INST] " + system + m.Content + " [/INST]")
			system = ""
		}
	}
	return t.EncodeSpecial(b.String(), true)
}

func (t textTokenizer) AppendText(dst []byte, id int32) []byte { return t.AppendPieceBytes(dst, id) }

// OpenGenerator implements spec.GeneratorOpener: the run's model as a
// text generator, batching --batch sequences, with the reference's
// generation rule (greedy, at least 2 tokens, ending on </s>).
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
	return llmbench.ServeModel(ctx, "mixtral", m, closeModel, textTokenizer{tok}, env.Batch, gen)
}
