package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/mlperf-go/inference/loadgen"
)

// Model runs inference on samples a QSL has loaded. It is what a benchmark
// plugs into the harness.
type Model interface {
	// Predict runs idx as one batch. On entry out has len(idx) elements,
	// out[i].ID is set and the other fields are zero; Predict fills
	// out[i].Data (and Tokens, or Err for a sample that failed on its own).
	// Data must stay valid until Predict's caller has completed the batch,
	// which it does before calling Predict again with the same out; a model
	// may therefore reuse a buffer per call site only if it is not shared
	// between concurrent calls. A non-nil error fails every sample of the
	// batch. Predict must be safe for concurrent use when the model is
	// given to a Pool with more than one worker.
	Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error
}

// ModelFunc adapts a function to Model.
type ModelFunc func(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error

// Predict calls f.
func (f ModelFunc) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	return f(ctx, idx, out)
}

// ErrClosed is the error of samples issued to, or still queued in, a SUT
// that has been closed.
var ErrClosed = errors.New("harness: SUT closed")

// predict calls m.Predict for one batch, turning an error or a panic into
// per-sample errors, and completes the batch through c.
func predict(ctx context.Context, m Model, idx []loadgen.SampleIndex, out []loadgen.Response, c loadgen.Completer) {
	var err error
	if err = ctx.Err(); err == nil {
		err = safePredict(ctx, m, idx, out)
	}
	if err != nil {
		for i := range out {
			out[i].Data, out[i].Tokens = nil, 0
			if out[i].Err == nil {
				out[i].Err = err
			}
		}
	}
	c.Complete(out...)
}

func safePredict(ctx context.Context, m Model, idx []loadgen.SampleIndex, out []loadgen.Response) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("harness: model panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return m.Predict(ctx, idx, out)
}

// Inline is the SingleStream SUT: IssueQuery runs the whole query as one
// Predict call in the calling goroutine and completes it before returning,
// as the reference runs SingleStream in LoadGen's issue thread. Queries
// larger than Batch are cut into batches run one after another. It is safe
// for concurrent use if the model is.
type Inline struct {
	model Model
	batch int
	pool  sync.Pool // *scratch
}

// NewInline returns an Inline SUT running at most batch samples per
// Predict call (batch < 1 means 1).
func NewInline(m Model, batch int) *Inline {
	if batch < 1 {
		batch = 1
	}
	return &Inline{model: m, batch: batch}
}

// IssueQuery implements loadgen.SUT.
func (s *Inline) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	sc, _ := s.pool.Get().(*scratch)
	if sc == nil {
		sc = newScratch(s.batch)
	}
	for len(samples) > 0 {
		n := min(len(samples), s.batch)
		idx, out := sc.fill(samples[:n])
		predict(ctx, s.model, idx, out, c)
		samples = samples[n:]
	}
	sc.clear()
	s.pool.Put(sc)
}

// scratch is one worker's reusable batch buffers.
type scratch struct {
	idx []loadgen.SampleIndex
	out []loadgen.Response
}

func newScratch(batch int) *scratch {
	return &scratch{idx: make([]loadgen.SampleIndex, 0, batch), out: make([]loadgen.Response, 0, batch)}
}

func (s *scratch) fill(samples []loadgen.Sample) ([]loadgen.SampleIndex, []loadgen.Response) {
	s.idx, s.out = s.idx[:0], s.out[:0]
	for _, q := range samples {
		s.idx = append(s.idx, q.Index)
		s.out = append(s.out, loadgen.Response{ID: q.ID})
	}
	return s.idx, s.out
}

// clear drops references to response data so that it can be collected.
func (s *scratch) clear() {
	clear(s.out[:cap(s.out)])
}

// PoolConfig sizes a Pool.
type PoolConfig struct {
	// Batch is the most samples one Predict call gets (< 1 means 1).
	Batch int
	// Workers is the number of concurrent Predict calls (< 1 means 1).
	Workers int
	// QueueWait, when set, gets each sample's wait in the Pool's queue
	// (ns from IssueQuery to a worker taking it), from the workers,
	// concurrently. Added to the loadgen's issue lag it is how late a
	// sample reaches the model's Predict (and, for a remote backend, the
	// request the wire). Inline SUTs have no queue and do not call it.
	QueueWait Recorder
	// SendLag, when set, gets each Server sample's lag from its scheduled
	// time (loadgen.Sample.Scheduled) to a worker taking it, in ns, from
	// the workers, concurrently: the issue lag and the queue wait
	// together, how late the sample reaches Predict (and, for a remote
	// backend, the wire). Samples without a scheduled time are skipped.
	SendLag Recorder
}

// Recorder takes one measured duration in ns. Implementations must be
// safe for concurrent use and cheap: they run on the workers' path.
type Recorder interface {
	Record(ns int64)
}

// Pool is the SUT of the Offline, MultiStream and Server scenarios: a
// queue of samples served by Workers goroutines. A worker that becomes free
// takes up to Batch samples from the head of the queue (waiting for at
// least one) and runs them as one Predict call. An Offline query is thus
// cut into full batches and one remainder batch; Server samples are
// batched with whatever else is waiting, never held back to fill a batch.
//
// IssueQuery only enqueues and returns at once. Pool is safe for
// concurrent use. Close stops the workers; it completes still-queued
// samples with ErrClosed.
type Pool struct {
	model   Model
	batch   int
	wait    Recorder // nil: queue waits are not measured
	sendLag Recorder // nil: send lags are not measured

	mu     sync.Mutex
	cond   sync.Cond
	queue  []queued // FIFO; head at queue[0]
	closed bool
	wg     sync.WaitGroup
}

type queued struct {
	s   loadgen.Sample
	c   loadgen.Completer
	ctx context.Context
	at  loadgen.Instant // when queued, with a QueueWait recorder
}

// NewPool starts a Pool's workers.
func NewPool(m Model, cfg PoolConfig) *Pool {
	p := &Pool{model: m, batch: max(cfg.Batch, 1), wait: cfg.QueueWait, sendLag: cfg.SendLag}
	p.cond.L = &p.mu
	workers := max(cfg.Workers, 1)
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// IssueQuery implements loadgen.SUT: it queues samples and returns.
func (p *Pool) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	var at loadgen.Instant
	if p.wait != nil {
		at = loadgen.Now()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		fail(samples, c, ErrClosed)
		return
	}
	for _, s := range samples {
		p.queue = append(p.queue, queued{s: s, c: c, ctx: ctx, at: at})
	}
	p.mu.Unlock()
	if len(samples) == 1 {
		p.cond.Signal()
	} else {
		p.cond.Broadcast()
	}
}

// Flush implements loadgen.Flusher. The pool never holds samples back, so
// there is nothing to flush.
func (p *Pool) Flush() {}

// Close stops the workers after their current batches and completes every
// still-queued sample with ErrClosed. It is idempotent.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	rest := p.queue
	p.queue = nil
	p.mu.Unlock()
	p.cond.Broadcast()
	p.wg.Wait()
	for _, q := range rest {
		q.c.Complete(loadgen.Response{ID: q.s.ID, Err: ErrClosed})
	}
	return nil
}

func (p *Pool) work() {
	defer p.wg.Done()
	sc := newScratch(p.batch)
	batch := make([]queued, 0, p.batch)
	for {
		p.mu.Lock()
		for len(p.queue) == 0 && !p.closed {
			p.cond.Wait()
		}
		if p.closed {
			p.mu.Unlock()
			return
		}
		n := min(len(p.queue), p.batch)
		batch = append(batch[:0], p.queue[:n]...)
		clear(p.queue[:n])
		p.queue = p.queue[n:]
		if len(p.queue) == 0 {
			p.queue = p.queue[:0:0] // let the drained backing array go
		}
		p.mu.Unlock()
		if p.wait != nil || p.sendLag != nil {
			p.recordLags(batch, loadgen.Now())
		}
		p.run(sc, batch)
		clear(batch)
	}
}

// recordLags gives the recorders each sample's wait in the queue and its
// lag since its scheduled time, both to now (one clock read per batch).
func (p *Pool) recordLags(batch []queued, now loadgen.Instant) {
	for _, q := range batch {
		if p.wait != nil {
			p.wait.Record(int64(now.Sub(q.at)))
		}
		if p.sendLag != nil && !q.s.Scheduled.IsZero() {
			p.sendLag.Record(int64(now.Sub(q.s.Scheduled)))
		}
	}
}

// run predicts one batch taken from the queue. Samples of one batch
// normally share a completer and a context; where they do not, the batch
// is split into runs that do.
func (p *Pool) run(sc *scratch, batch []queued) {
	for len(batch) > 0 {
		n := 1
		for n < len(batch) && same(batch[n].c, batch[0].c) && same(batch[n].ctx, batch[0].ctx) {
			n++
		}
		sc.idx, sc.out = sc.idx[:0], sc.out[:0]
		for _, q := range batch[:n] {
			sc.idx = append(sc.idx, q.s.Index)
			sc.out = append(sc.out, loadgen.Response{ID: q.s.ID})
		}
		predict(batch[0].ctx, p.model, sc.idx, sc.out, batch[0].c)
		sc.clear()
		batch = batch[n:]
	}
}

func fail(samples []loadgen.Sample, c loadgen.Completer, err error) {
	out := make([]loadgen.Response, len(samples))
	for i, s := range samples {
		out[i] = loadgen.Response{ID: s.ID, Err: err}
	}
	c.Complete(out...)
}

// same reports whether a and b are the same value; values of types that
// cannot be compared are never the same.
func same(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}

// ForScenario returns the SUT the reference uses for a LoadGen scenario
// (by name: SingleStream, MultiStream, Server, Offline): Inline for
// SingleStream, a Pool otherwise. close stops it; call it after the run.
func ForScenario(scenario string, m Model, cfg PoolConfig) (sut loadgen.SUT, close func() error, err error) {
	switch scenario {
	case "SingleStream":
		return NewInline(m, cfg.Batch), func() error { return nil }, nil
	case "MultiStream", "Server", "Offline":
		p := NewPool(m, cfg)
		return p, p.Close, nil
	}
	return nil, nil, fmt.Errorf("harness: unknown scenario %q; want SingleStream, MultiStream, Server or Offline", scenario)
}
