package llama2

// The llama2 model as a text generator for `mlperf serve llama2`: OpenAI
// completions over the local greedy decoder with continuous batching.

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/generate"
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

// generator is Llama 2 greedy decoding with continuous batching behind
// openai.Generator: every request joins the running batch. Close it after
// the server has drained.
type generator struct {
	bt   *generate.Batcher
	tok  *tokenizer.Llama
	eos  int32
	done chan error
}

// newGenerator starts a batcher of maxBatch sequences on m; tok turns text
// into ids and back.
func newGenerator(ctx context.Context, m *generate.Model, tok *tokenizer.Llama, maxBatch, maxNew int) (*generator, error) {
	gen := Generation()
	gen.MaxNewTokens = maxNew
	bt, err := m.NewBatcher(generate.BatcherConfig{GreedyConfig: gen, MaxBatch: maxBatch})
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	g := &generator{bt: bt, tok: tok, eos: int32(gen.EOS), done: make(chan error, 1)}
	go func() { g.done <- bt.Run(ctx) }()
	return g, nil
}

// Generate implements openai.Generator: the tokens stream as their text,
// byte pieces joined into whole UTF-8 characters, EOS not written.
func (g *generator) Generate(ctx context.Context, prompt string, maxTokens int, emit func(string)) (openai.Usage, error) {
	ids := promptIDs(g.tok, prompt)
	toks := make(chan int32, maxTokens+1)
	type result struct {
		toks []int32
		err  error
	}
	res := make(chan result, 1)
	g.bt.Submit(&generate.Request{
		Prompt: ids, MaxNewTokens: maxTokens,
		Token: func(t int32) { toks <- t },
		Done:  func(t []int32, err error) { res <- result{t, err} },
	})
	var pending []byte
	out := func(t int32) {
		pending = g.tok.AppendPieceBytes(pending, t)
		if len(pending) > 0 && (utf8.Valid(pending) || len(pending) >= utf8.UTFMax) && ctx.Err() == nil {
			emit(string(pending))
			pending = pending[:0]
		}
	}
	for {
		select {
		case t := <-toks:
			out(t)
			continue
		case r := <-res:
			for len(toks) > 0 {
				out(<-toks)
			}
			if r.err != nil {
				return openai.Usage{}, fmt.Errorf("llama2: %w", r.err)
			}
			if len(pending) > 0 && ctx.Err() == nil {
				emit(string(pending))
			}
			u := openai.Usage{PromptTokens: len(ids), CompletionTokens: len(r.toks), FinishReason: "length"}
			if n := len(r.toks); n > 0 && r.toks[n-1] == g.eos {
				u.FinishReason = "stop"
			}
			return u, nil
		}
	}
}

// Close stops the batcher once every accepted request is done.
func (g *generator) Close() error {
	g.bt.Close()
	return <-g.done
}

// OpenGenerator implements spec.GeneratorOpener: the run's model as a
// text generator, batching --batch sequences.
func (driver) OpenGenerator(ctx context.Context, env *spec.OpenRequest) (openai.Generator, func() error, error) {
	maxNew, err := maxNewTokens(env.Extra)
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
	g, err := newGenerator(ctx, m, t, max(env.Batch, 1), maxNew)
	if err != nil {
		closeModel()
		return nil, nil, err
	}
	return g, func() error {
		err := g.Close()
		if cerr := closeModel(); err == nil {
			err = cerr
		}
		return err
	}, nil
}
