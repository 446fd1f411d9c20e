package generate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mlperf-go/inference/llm/sample"
)

// Request is one sequence for a Batcher.
type Request struct {
	// Prompt is the token ids of the prompt; not modified, and not retained
	// after Done.
	Prompt []int32
	// MaxNewTokens, when positive, replaces the batcher's MaxNewTokens for
	// this request.
	MaxNewTokens int
	// FirstToken, when set, is called with the first generated token as
	// soon as it is known (the loadgen's FirstToken, for TTFT). It runs on
	// the batcher's goroutine and must return quickly.
	FirstToken func(tok int32)
	// Token, when set, is called with every generated token as soon as it
	// is known, the first included (after FirstToken) and EOS included
	// when produced: a server streams them. It runs on the batcher's
	// goroutine and must return quickly.
	Token func(tok int32)
	// Done is called exactly once, with the generated tokens (owned by the
	// callee; EOS included when produced) or the error that stopped the
	// sequence. It runs on the batcher's goroutine (or on Submit's, for a
	// request rejected at once) and must return quickly.
	Done func(tokens []int32, err error)
}

// BatcherConfig configures continuous batching.
type BatcherConfig struct {
	sample.GreedyConfig
	// MaxBatch is the number of sequences decoded together (at least 1).
	MaxBatch int
}

// ErrClosed is the error of requests submitted to a Batcher after Close.
var ErrClosed = errors.New("generate: batcher closed")

// Batcher decodes requests greedily with continuous batching: up to
// MaxBatch sequences share each decode step; a sequence that ends frees its
// row, and requests waiting are prefilled (together, as one left-padded
// batch) and merged into the running batch before the next step, so a long
// generation never holds shorter ones back. Run drives it on one goroutine;
// Submit and Close are safe for concurrent use.
type Batcher struct {
	m   *Model
	cfg BatcherConfig

	mu     sync.Mutex
	queue  []*Request
	closed bool
	wake   chan struct{}
}

// NewBatcher checks cfg and returns a batcher for m (which must have a KV
// cache). Call Run to start decoding.
func (m *Model) NewBatcher(cfg BatcherConfig) (*Batcher, error) {
	if !m.HasCache() {
		return nil, fmt.Errorf("%w: continuous batching needs the cache", ErrNoCache)
	}
	if _, err := sample.NewGreedy(cfg.GreedyConfig); err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	if cfg.MaxBatch < 1 {
		return nil, fmt.Errorf("%w: MaxBatch %d must be at least 1", ErrBadInput, cfg.MaxBatch)
	}
	return &Batcher{m: m, cfg: cfg, wake: make(chan struct{}, 1)}, nil
}

// Submit queues r; it never blocks. A request with a bad prompt, or one
// submitted after Close, fails at once through its Done.
func (b *Batcher) Submit(r *Request) {
	maxNew := b.cfg.MaxNewTokens
	if r.MaxNewTokens > 0 {
		maxNew = r.MaxNewTokens
	}
	if err := b.m.checkPrompts([][]int32{r.Prompt}, maxNew); err != nil {
		r.Done(nil, err)
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		r.Done(nil, ErrClosed)
		return
	}
	b.queue = append(b.queue, r)
	b.mu.Unlock()
	b.signal()
}

// Close stops accepting requests; Run returns once every accepted request
// is done.
func (b *Batcher) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
}

func (b *Batcher) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// take removes up to n queued requests; it reports closed when the queue is
// empty and Close was called.
func (b *Batcher) take(n int) (rs []*Request, closed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := min(n, len(b.queue))
	rs = append(rs, b.queue[:k]...)
	b.queue = b.queue[k:]
	return rs, b.closed && len(b.queue) == 0
}

type slot struct {
	r   *Request
	cfg sample.GreedyConfig
	row greedyRow
}

// Run decodes until Close has been called and every request is done, or
// until ctx is cancelled (every running and queued request then fails with
// ctx's error, so does Run, and the batcher is closed). A failed model step fails the sequences
// it ran and Run goes on with the next requests.
func (b *Batcher) Run(ctx context.Context) error {
	m, cfg := b.m, b.cfg
	capT := m.spec.MaxPositions
	if capT == 0 {
		capT = 1024 + cfg.MaxNewTokens
	}
	st := m.newState(capT)
	defer m.putState(st)
	pre := m.newState(capT)
	defer m.putState(pre)
	var live []*slot // row → sequence
	fail := func(slots []*slot, err error) {
		for _, s := range slots {
			s.r.Done(nil, err)
		}
	}
	defer func() {
		if err := ctx.Err(); err != nil {
			b.mu.Lock()
			b.closed = true
			b.mu.Unlock()
			fail(live, err)
			rs, _ := b.take(int(^uint(0) >> 1))
			for _, r := range rs {
				r.Done(nil, err)
			}
		}
	}()
	var toks []int32
	var keep []int
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		// Admit waiting requests into free rows.
		rs, closed := b.take(cfg.MaxBatch - len(live))
		if len(rs) == 0 && len(live) == 0 {
			if closed {
				return nil
			}
			select {
			case <-b.wake:
				continue
			case <-ctx.Done():
				return fmt.Errorf("generate: %w", ctx.Err())
			}
		}
		if len(rs) > 0 {
			prompts := make([][]int32, len(rs))
			for i, r := range rs {
				prompts[i] = r.Prompt
			}
			news := make([]*slot, len(rs))
			for i, r := range rs {
				news[i] = &slot{r: r, cfg: cfg.GreedyConfig}
				if r.MaxNewTokens > 0 {
					news[i].cfg.MaxNewTokens = r.MaxNewTokens
				}
				news[i].row.toks = make([]int32, 0, min(news[i].cfg.MaxNewTokens, 4096))
			}
			if err := pre.prefill(ctx, prompts); err != nil {
				fail(news, err)
				continue
			}
			keep = keep[:0]
			toks = toks[:0]
			var cont []*slot
			for r, s := range news {
				tok, done := s.row.step(pre.last()[r], &s.cfg)
				if s.r.FirstToken != nil {
					s.r.FirstToken(tok)
				}
				if s.r.Token != nil {
					s.r.Token(tok)
				}
				if done {
					s.r.Done(s.row.toks, nil)
					continue
				}
				keep = append(keep, r)
				cont = append(cont, s)
			}
			if err := pre.keep(keep); err == nil {
				err = st.merge(pre)
				if err != nil {
					fail(cont, err)
				} else {
					live = append(live, cont...)
				}
			} else {
				fail(cont, err)
			}
			// the new rows' first tokens are fed with the next step
		}
		if len(live) == 0 {
			continue
		}
		// Each live row's last token is fed: the first tokens of newly
		// merged rows included.
		toks = toks[:0]
		for _, s := range live {
			toks = append(toks, s.row.toks[len(s.row.toks)-1])
		}
		if err := st.step(ctx, toks); err != nil {
			fail(live, err)
			live = nil
			_ = st.keep(nil)
			continue
		}
		keep = keep[:0]
		var next []*slot
		for r, s := range live {
			tok, done := s.row.step(st.last()[r], &s.cfg)
			if s.r.Token != nil {
				s.r.Token(tok)
			}
			if done {
				s.r.Done(s.row.toks, nil)
				continue
			}
			keep = append(keep, r)
			next = append(next, s)
		}
		live = next
		if err := st.keep(keep); err != nil {
			fail(live, err)
			live = nil
			_ = st.keep(nil)
		}
	}
}
