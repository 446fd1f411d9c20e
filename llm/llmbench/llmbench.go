// Package llmbench holds what every LLM benchmark (Llama 2, Llama 3.1,
// Mixtral, and over remote engines DeepSeek-R1 and gpt-oss) builds on top
// of llm/generate for a run: the counting SUT (continuous batching
// locally, or a remote engine's SUT), the static batches of `mlperf
// perf`'s raw side, the text generator `mlperf serve` puts behind
// /v1/completions, and the parts of a descriptor and driver they share
// (--max-new-tokens, the scorer's --dtype, the After hook with TEST06). A
// benchmark package gives it its generation rule, tokenizer and prompts.
package llmbench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// Prompts returns the prompt ids of a loaded sample.
type Prompts func(loadgen.SampleIndex) ([]int32, error)

// ClosingSUT is a SUT that is closed after the run: the local decoder's or
// a remote engine's.
type ClosingSUT interface {
	loadgen.SUT
	Close() error
}

// SUT is a loadgen SUT for one scenario: a decoder's SUT with FirstToken
// withheld in Offline (LoadGen needs it only in the other scenarios) and a
// count of completed samples and tokens. IssueQuery is safe for
// concurrent use.
type SUT struct {
	sut     ClosingSUT
	offline bool
	samples atomic.Int64
	tokens  atomic.Int64
}

// Wrap counts the responses of s; offline withholds FirstToken.
func Wrap(s ClosingSUT, offline bool) *SUT { return &SUT{sut: s, offline: offline} }

// LocalConfig configures NewLocal.
type LocalConfig struct {
	// Prompts gives the prompt ids of a loaded sample.
	Prompts Prompts
	// MaxBatch is the number of sequences decoded together (continuous
	// batching); at least 1.
	MaxBatch int
	// Generation is the decoding rule.
	Generation sample.GreedyConfig
	// Offline withholds FirstToken (the Offline scenario).
	Offline bool
}

// NewLocal starts greedy decoding with continuous batching on m: the
// first token goes to the loadgen's FirstToken (not in Offline) and every
// response holds all generated ids as little-endian int32, first token
// included, with Tokens set (n_tokens = length, TEST06's checks). Close it
// after the run.
func NewLocal(ctx context.Context, m *generate.Model, cfg LocalConfig) (*SUT, error) {
	s, err := m.NewSUT(ctx, generate.SUTConfig{
		BatcherConfig: generate.BatcherConfig{GreedyConfig: cfg.Generation, MaxBatch: cfg.MaxBatch},
		Prompt:        cfg.Prompts,
		Encode:        generate.EncodeInt32,
	})
	if err != nil {
		return nil, err
	}
	return Wrap(s, cfg.Offline), nil
}

// counting passes responses on and counts them.
type counting struct {
	c loadgen.Completer
	b *SUT
}

func (c counting) Complete(rs ...loadgen.Response) {
	n := 0
	for _, r := range rs {
		n += r.Tokens
	}
	c.b.tokens.Add(int64(n))
	c.b.samples.Add(int64(len(rs)))
	c.c.Complete(rs...)
}

type countingTokens struct {
	counting
	tc loadgen.TokenCompleter
}

func (c countingTokens) FirstToken(id loadgen.ResponseID, data []byte) { c.tc.FirstToken(id, data) }

// IssueQuery implements loadgen.SUT.
func (b *SUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	cc := counting{c: c, b: b}
	if tc, ok := c.(loadgen.TokenCompleter); ok && !b.offline {
		b.sut.IssueQuery(ctx, samples, countingTokens{cc, tc})
		return
	}
	b.sut.IssueQuery(ctx, samples, cc)
}

// Done returns the samples and generated tokens completed so far.
func (b *SUT) Done() (samples, tokens int64) { return b.samples.Load(), b.tokens.Load() }

// Close stops the SUT once every issued sample is done.
func (b *SUT) Close() error { return b.sut.Close() }

// Continuous is a continuous batcher as perf's raw side calls it (with
// Instance.RawWhole: a whole round's prompts in one call): one batcher of
// maxBatch sequences decoding by gen, running for the instance's life as
// the SUT's does, to which each call submits its prompts, as a loadgen
// Offline query's samples are submitted, returning when all are done. So
// the raw side runs the same decoder as the harness side, without the
// loadgen. (A batcher made for each call had its first steps allocate
// afresh; some raw rounds then ran at two thirds of the harness's rate.)
// stop ends the batcher; call it before closing m.
func Continuous(m *generate.Model, prompts Prompts, gen sample.GreedyConfig, maxBatch int) (raw harness.Model, stop func() error, err error) {
	b, err := m.NewBatcher(generate.BatcherConfig{GreedyConfig: gen, MaxBatch: maxBatch})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		b.Run(ctx) // its error is the requests' errors, or the cancel of stop
	}()
	stop = func() error {
		b.Close()
		cancel()
		<-ran
		return nil
	}
	raw = harness.ModelFunc(func(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
		ps := make([][]int32, len(idx))
		for i, s := range idx {
			var err error
			if ps[i], err = prompts(s); err != nil {
				return err
			}
		}
		var wg sync.WaitGroup
		wg.Add(len(ps))
		for i, p := range ps {
			// Done runs on the batcher's goroutine (or here, for a prompt
			// refused at once), each for its own slot of out.
			b.Submit(&generate.Request{Prompt: p, Done: func(_ []int32, err error) { out[i].Err = err; wg.Done() }})
		}
		all := make(chan struct{})
		go func() { wg.Wait(); close(all) }()
		select {
		case <-all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	return raw, stop, nil
}

// TextTokenizer is what Generator needs of a tokenizer.
type TextTokenizer interface {
	// PromptIDs returns the ids a server runs for a prompt text (BOS
	// first, as the engines add it).
	PromptIDs(text string) []int32
	// ChatIDs returns the ids of chat messages in the model's chat
	// template, the assistant's turn opened (BOS first).
	ChatIDs(msgs []openai.Message) []int32
	// AppendText appends the bytes id stands for in generated text to dst
	// (nothing for special tokens).
	AppendText(dst []byte, id int32) []byte
}

// Generator is greedy decoding with continuous batching behind
// openai.Generator: every request joins the running batch. Close it after
// the server has drained.
type Generator struct {
	bt   *generate.Batcher
	spec generate.Spec
	tok  TextTokenizer
	gen  sample.GreedyConfig
	done chan error
}

// NewGenerator starts a batcher of maxBatch sequences decoding by gen on
// m; tok turns text into ids and back.
func NewGenerator(ctx context.Context, m *generate.Model, tok TextTokenizer, maxBatch int, gen sample.GreedyConfig) (*Generator, error) {
	bt, err := m.NewBatcher(generate.BatcherConfig{GreedyConfig: gen, MaxBatch: maxBatch})
	if err != nil {
		return nil, err
	}
	g := &Generator{bt: bt, spec: m.Spec(), tok: tok, gen: gen, done: make(chan error, 1)}
	go func() { g.done <- bt.Run(ctx) }()
	return g, nil
}

// Generate implements openai.Generator: the prompt's ids as given, or its
// text or chat messages tokenized; every generated id is emitted as it
// comes, with the text it completes (bytes joined into whole UTF-8
// characters; nothing for end-of-sequence and other special ids). A
// prompt the model cannot run (ids outside its vocabulary, past its
// context) is openai.ErrBadRequest.
func (g *Generator) Generate(ctx context.Context, req openai.Request, emit func(int32, string)) (openai.Usage, error) {
	ids := req.IDs
	switch {
	case len(req.Messages) > 0:
		ids = g.tok.ChatIDs(req.Messages)
	case len(ids) == 0:
		ids = g.tok.PromptIDs(req.Prompt)
	}
	if err := g.spec.CheckPrompt(ids, req.MaxTokens); err != nil {
		return openai.Usage{}, fmt.Errorf("%w: %w", openai.ErrBadRequest, err)
	}
	toks := make(chan int32, req.MaxTokens+1)
	type result struct {
		toks []int32
		err  error
	}
	res := make(chan result, 1)
	g.bt.Submit(&generate.Request{
		Prompt: ids, MaxNewTokens: req.MaxTokens,
		Token: func(t int32) { toks <- t },
		Done:  func(t []int32, err error) { res <- result{t, err} },
	})
	var pending []byte
	out := func(t int32) {
		pending = g.tok.AppendText(pending, t)
		if ctx.Err() != nil {
			return
		}
		if len(pending) > 0 && (utf8.Valid(pending) || len(pending) >= utf8.UTFMax) {
			emit(t, string(pending))
			pending = pending[:0]
			return
		}
		emit(t, "")
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
				return openai.Usage{}, fmt.Errorf("llmbench: %w", r.err)
			}
			if len(pending) > 0 && ctx.Err() == nil {
				emit(-1, string(pending)) // a character the model left incomplete
			}
			u := openai.Usage{PromptTokens: len(ids), CompletionTokens: len(r.toks), FinishReason: "length"}
			if n := len(r.toks); n > 0 && g.gen.IsEOS(r.toks[n-1]) {
				u.FinishReason = "stop"
			}
			return u, nil
		}
	}
}

// Close stops the batcher once every accepted request is done.
func (g *Generator) Close() error {
	g.bt.Close()
	return <-g.done
}

// ServeModel is the text generator `mlperf serve` puts behind
// /v1/completions for a decoder benchmark: NewGenerator on m with a
// batcher of maxBatch sequences (at least 1) decoding by gen. It returns
// the generator and the func that closes it and then the model
// (closeModel, which it calls itself when the generator cannot start;
// the error then names bench).
func ServeModel(ctx context.Context, bench string, m *generate.Model, closeModel func() error, tok TextTokenizer, maxBatch int, gen sample.GreedyConfig) (openai.Generator, func() error, error) {
	g, err := NewGenerator(ctx, m, tok, max(maxBatch, 1), gen)
	if err != nil {
		closeModel()
		return nil, nil, fmt.Errorf("%s: %w", bench, err)
	}
	return g, func() error {
		err := g.Close()
		if cerr := closeModel(); err == nil {
			err = cerr
		}
		return err
	}, nil
}
