// Package loadgentest provides systems under test and sample libraries for
// exercising the loadgen without a model, like net/http/httptest: a SUT
// that completes inside IssueQuery, one with a fixed service time and a
// worker pool, and an in-memory QSL that records what it was asked to load.
package loadgentest

import (
	"context"
	"encoding/binary"
	"sync"
	"time"

	"github.com/mlperf-go/inference/loadgen"
)

// Response returns the response payload the test SUTs send for a sample:
// its index as a little-endian uint32 (what `mlperf loadgen` logs).
func Response(idx loadgen.SampleIndex) []byte {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(idx))
	return b[:]
}

// NullSUT completes every sample inside IssueQuery. It is safe for
// concurrent use. OnIssue, when set, sees every query before it completes
// (for recording issue order); Fail, when set, decides which samples are
// completed with an error.
type NullSUT struct {
	OnIssue func(samples []loadgen.Sample)
	Fail    func(s loadgen.Sample) error
}

// Name implements loadgen.Namer.
func (n *NullSUT) Name() string { return "NullSUT" }

// nullBuf is the scratch of one NullSUT.IssueQuery call: handing a slice
// to the Completer interface makes it escape, so it is pooled rather than
// allocated per query.
type nullBuf struct {
	resp [64]loadgen.Response
	data [64][4]byte
}

var nullBufs = sync.Pool{New: func() any { return new(nullBuf) }}

// IssueQuery implements loadgen.SUT.
func (n *NullSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	if n.OnIssue != nil {
		n.OnIssue(samples)
	}
	b := nullBufs.Get().(*nullBuf)
	for len(samples) > 0 {
		k := min(len(samples), len(b.resp))
		for i, s := range samples[:k] {
			binary.LittleEndian.PutUint32(b.data[i][:], uint32(s.Index))
			b.resp[i] = loadgen.Response{ID: s.ID, Data: b.data[i][:]}
			if n.Fail != nil {
				b.resp[i].Err = n.Fail(s)
			}
		}
		c.Complete(b.resp[:k]...)
		samples = samples[k:]
	}
	nullBufs.Put(b)
}

// DelaySUT completes each sample after a fixed service time, on Workers
// goroutines (default 1), taking up to Batch samples at a time (default 1).
// Samples wait in an unbounded queue. Close stops the workers. It honours
// the context of IssueQuery: once that is cancelled, the samples of the
// query fail at once (Response.Err) instead of waiting out the service time.
type DelaySUT struct {
	ServiceTime time.Duration
	Workers     int
	Batch       int
	// Never, when set, makes the SUT drop every sample (it never completes):
	// for testing the completion timeout.
	Never bool

	once  sync.Once
	mu    sync.Mutex
	cond  *sync.Cond
	queue []item
	stop  bool
	wg    sync.WaitGroup
}

type item struct {
	ctx context.Context
	s   loadgen.Sample
	c   loadgen.Completer
}

// Name implements loadgen.Namer.
func (d *DelaySUT) Name() string { return "DelaySUT" }

func (d *DelaySUT) start() {
	d.cond = sync.NewCond(&d.mu)
	for range max(d.Workers, 1) {
		d.wg.Add(1)
		go d.work()
	}
}

func (d *DelaySUT) work() {
	defer d.wg.Done()
	batch := max(d.Batch, 1)
	for {
		d.mu.Lock()
		for len(d.queue) == 0 && !d.stop {
			d.cond.Wait()
		}
		if d.stop {
			d.mu.Unlock()
			return
		}
		k := min(batch, len(d.queue))
		take := append([]item(nil), d.queue[:k]...)
		d.queue = d.queue[k:]
		d.mu.Unlock()
		if d.ServiceTime > 0 && take[0].ctx.Err() == nil {
			t := time.NewTimer(d.ServiceTime)
			select {
			case <-t.C:
			case <-take[0].ctx.Done():
				t.Stop()
			}
		}
		for _, it := range take {
			if err := it.ctx.Err(); err != nil {
				// Cancelled: the sample fails at once instead of sleeping on.
				it.c.Complete(loadgen.Response{ID: it.s.ID, Err: err})
				continue
			}
			it.c.Complete(loadgen.Response{ID: it.s.ID, Data: Response(it.s.Index)})
		}
	}
}

// IssueQuery implements loadgen.SUT. A sample whose ctx is cancelled
// while it waits or is being served completes at once with ctx's error.
func (d *DelaySUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	if d.Never {
		return
	}
	d.once.Do(d.start)
	d.mu.Lock()
	for _, s := range samples {
		d.queue = append(d.queue, item{ctx, s, c})
	}
	d.mu.Unlock()
	d.cond.Broadcast()
}

// Close stops the workers; samples still queued are dropped.
func (d *DelaySUT) Close() error {
	d.once.Do(d.start)
	d.mu.Lock()
	d.stop = true
	d.mu.Unlock()
	d.cond.Broadcast()
	d.wg.Wait()
	return nil
}

// MemQSL is an in-memory QSL of Total samples, Performance of which fit in
// memory. It records every LoadSamples call. It is safe for concurrent use.
type MemQSL struct {
	Total, Performance int
	// LoadErr, when set, is returned by LoadSamples.
	LoadErr error

	mu    sync.Mutex
	loads [][]loadgen.SampleIndex
}

// Name implements loadgen.Namer.
func (q *MemQSL) Name() string { return "MemQSL" }

// TotalSampleCount implements loadgen.QSL.
func (q *MemQSL) TotalSampleCount() int { return q.Total }

// PerformanceSampleCount implements loadgen.QSL.
func (q *MemQSL) PerformanceSampleCount() int { return q.Performance }

// LoadSamples implements loadgen.QSL.
func (q *MemQSL) LoadSamples(_ context.Context, idx []loadgen.SampleIndex) error {
	if q.LoadErr != nil {
		return q.LoadErr
	}
	q.mu.Lock()
	q.loads = append(q.loads, append([]loadgen.SampleIndex(nil), idx...))
	q.mu.Unlock()
	return nil
}

// UnloadSamples implements loadgen.QSL.
func (q *MemQSL) UnloadSamples(context.Context, []loadgen.SampleIndex) error { return nil }

// Loads returns a copy of every LoadSamples call so far.
func (q *MemQSL) Loads() [][]loadgen.SampleIndex {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([][]loadgen.SampleIndex(nil), q.loads...)
}

// QueueSUT is one server with a fixed service time whose queue is
// modelled on the samples' scheduled times (Server scenario) rather than
// on this machine's speed: a sample completes at max(its scheduled time,
// the previous sample's modelled finish) + ServiceTime. Its capacity is
// exactly 1/ServiceTime samples/s however loaded the machine is, so a test
// of rates around that capacity (find-peak, Server validity) depends on
// the schedule alone; only a stall of the whole process longer than the
// latency bound still shows. Samples without a scheduled time are
// modelled as scheduled when issued. Safe for concurrent use.
type QueueSUT struct {
	ServiceTime time.Duration

	mu     sync.Mutex
	finish loadgen.Instant
}

// Name implements loadgen.Namer.
func (q *QueueSUT) Name() string { return "QueueSUT" }

// IssueQuery implements loadgen.SUT: each sample is completed by a timer
// at its modelled finish time.
func (q *QueueSUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	now := loadgen.Now()
	for _, s := range samples {
		at := s.Scheduled
		if at.IsZero() {
			at = now
		}
		q.mu.Lock()
		q.finish = max(q.finish, at) + loadgen.Instant(q.ServiceTime)
		done := q.finish
		q.mu.Unlock()
		id, idx := s.ID, s.Index
		time.AfterFunc(time.Duration(done-loadgen.Now()), func() {
			if err := ctx.Err(); err != nil {
				c.Complete(loadgen.Response{ID: id, Err: err})
				return
			}
			c.Complete(loadgen.Response{ID: id, Data: Response(idx)})
		})
	}
}
