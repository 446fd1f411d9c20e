package llama2

// The continuous-batching SUT of a local run, counting samples and
// generated tokens.

import (
	"context"
	"sync/atomic"

	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/loadgen"
)

// benchmark is a loadgen SUT for one scenario: the continuous-batching SUT
// of NewSUT, with FirstToken withheld in Offline (LoadGen needs it only in
// the other scenarios) and a count of completed samples and tokens.
// IssueQuery is safe for concurrent use.
type benchmark struct {
	sut     closingSUT
	offline bool
	samples atomic.Int64
	tokens  atomic.Int64
}

// benchmarkConfig configures NewBenchmark.
type benchmarkConfig struct {
	sutConfig
	// Offline withholds FirstToken (the Offline scenario).
	Offline bool
}

// newBenchmark starts the SUT on m; Close it after the run.
func newBenchmark(ctx context.Context, m *generate.Model, cfg benchmarkConfig) (*benchmark, error) {
	s, err := newSUT(ctx, m, cfg.sutConfig)
	if err != nil {
		return nil, err
	}
	return &benchmark{sut: s, offline: cfg.Offline}, nil
}

// closingSUT is a SUT that is closed after the run: the local decoder's or
// a remote engine's.
type closingSUT interface {
	loadgen.SUT
	Close() error
}

// counting passes responses on and counts them; it is a TokenCompleter
// only when tc is set.
type counting struct {
	c loadgen.Completer
	b *benchmark
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
func (b *benchmark) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	cc := counting{c: c, b: b}
	if tc, ok := c.(loadgen.TokenCompleter); ok && !b.offline {
		b.sut.IssueQuery(ctx, samples, countingTokens{cc, tc})
		return
	}
	b.sut.IssueQuery(ctx, samples, cc)
}

// Done returns the samples and generated tokens completed so far.
func (b *benchmark) Done() (samples, tokens int64) { return b.samples.Load(), b.tokens.Load() }

// Close stops the SUT once every issued sample is done.
func (b *benchmark) Close() error { return b.sut.Close() }
