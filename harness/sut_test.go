package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// echoModel answers each sample with its index as a little-endian uint32
// and records the batch sizes it saw.
type echoModel struct {
	mu      sync.Mutex
	batches []int
	fail    map[loadgen.SampleIndex]bool // per-sample failures
}

func (m *echoModel) Predict(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	m.mu.Lock()
	m.batches = append(m.batches, len(idx))
	m.mu.Unlock()
	buf := make([]byte, 4*len(idx))
	for i, x := range idx {
		if m.fail[x] {
			out[i].Err = fmt.Errorf("sample %d is bad", x)
			continue
		}
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(x))
		out[i].Data = buf[4*i : 4*i+4]
	}
	return nil
}

func samples(n int) []loadgen.Sample {
	s := make([]loadgen.Sample, n)
	for i := range s {
		s[i] = loadgen.Sample{ID: loadgen.ResponseID(1000 + i), Index: loadgen.SampleIndex(i * 3)}
	}
	return s
}

func checkEcho(t *testing.T, got map[loadgen.ResponseID]loadgen.Response, in []loadgen.Sample) {
	t.Helper()
	if len(got) != len(in) {
		t.Fatalf("got %d responses, want %d", len(got), len(in))
	}
	for _, s := range in {
		r, ok := got[s.ID]
		if !ok {
			t.Fatalf("no response for ID %d", s.ID)
		}
		if r.Err != nil {
			t.Fatalf("ID %d: unexpected error %v", s.ID, r.Err)
		}
		if len(r.Data) != 4 || binary.LittleEndian.Uint32(r.Data) != uint32(s.Index) {
			t.Fatalf("ID %d: data %x, want index %d", s.ID, r.Data, s.Index)
		}
	}
}

func TestPoolBatchingSplitsAndRemainder(t *testing.T) {
	for _, tc := range []struct {
		n, batch, workers int
		want              []int // batch sizes, sorted
	}{
		{10, 4, 1, []int{2, 4, 4}},
		{10, 4, 3, []int{2, 4, 4}},
		{8, 8, 1, []int{8}},
		{7, 8, 2, []int{7}},
		{5, 1, 2, []int{1, 1, 1, 1, 1}},
		{33, 32, 4, []int{1, 32}},
		{1, 0, 0, []int{1}}, // zero config means batch 1, one worker
	} {
		t.Run(fmt.Sprintf("n%d_b%d_w%d", tc.n, tc.batch, tc.workers), func(t *testing.T) {
			m := &echoModel{}
			p := NewPool(m, PoolConfig{Batch: tc.batch, Workers: tc.workers})
			defer p.Close()
			rec := loadgentest.NewRecorder()
			in := samples(tc.n)
			p.IssueQuery(context.Background(), in, rec)
			checkEcho(t, waitFor(t, rec, tc.n), in)
			m.mu.Lock()
			got := slices.Sorted(slices.Values(m.batches))
			m.mu.Unlock()
			if !slices.Equal(got, tc.want) {
				t.Fatalf("batch sizes %v, want %v", got, tc.want)
			}
		})
	}
}

func TestInlineCompletesBeforeReturning(t *testing.T) {
	for _, tc := range []struct {
		n, batch int
		want     []int
	}{
		{1, 1, []int{1}},
		{8, 3, []int{3, 3, 2}},
		{8, 8, []int{8}},
	} {
		m := &echoModel{}
		s := NewInline(m, tc.batch)
		rec := loadgentest.NewRecorder()
		in := samples(tc.n)
		s.IssueQuery(context.Background(), in, rec)
		got := rec.Responses()
		if len(got) != tc.n {
			t.Fatalf("n=%d batch=%d: %d responses when IssueQuery returned", tc.n, tc.batch, len(got))
		}
		checkEcho(t, got, in)
		if !slices.Equal(m.batches, tc.want) {
			t.Fatalf("n=%d batch=%d: batches %v, want %v", tc.n, tc.batch, m.batches, tc.want)
		}
	}
}

// barrierModel blocks every Predict until `want` calls are in flight at
// once, proving that the pool runs that many concurrently.
type barrierModel struct {
	mu       sync.Mutex
	cond     sync.Cond
	inFlight int
	peak     int
	want     int
}

func (m *barrierModel) Predict(_ context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	m.mu.Lock()
	m.inFlight++
	m.peak = max(m.peak, m.inFlight)
	m.cond.Broadcast()
	for m.peak < m.want {
		m.cond.Wait()
	}
	m.inFlight--
	m.mu.Unlock()
	for i := range out {
		out[i].Data = []byte{byte(idx[i])}
	}
	return nil
}

func TestPoolServerConcurrency(t *testing.T) {
	const workers = 4
	m := &barrierModel{want: workers}
	m.cond.L = &m.mu
	p := NewPool(m, PoolConfig{Batch: 1, Workers: workers})
	defer p.Close()
	rec := loadgentest.NewRecorder()
	in := samples(16)
	// Server traffic: one sample per query, from several goroutines.
	var wg sync.WaitGroup
	for _, s := range in {
		wg.Go(func() { p.IssueQuery(context.Background(), []loadgen.Sample{s}, rec) })
	}
	wg.Wait()
	got := waitFor(t, rec, len(in))
	if len(got) != len(in) || rec.Duplicates() != 0 {
		t.Fatalf("%d responses (%d duplicates), want %d", len(got), rec.Duplicates(), len(in))
	}
	if m.peak != workers {
		t.Fatalf("peak concurrency %d, want %d", m.peak, workers)
	}
}

// gateModel holds every Predict until the gate opens.
type gateModel struct {
	gate    chan struct{}
	started chan int
	echo    echoModel
}

func (m *gateModel) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	m.started <- len(idx)
	<-m.gate
	return m.echo.Predict(ctx, idx, out)
}

func TestPoolServerBatchesWhatIsQueued(t *testing.T) {
	m := &gateModel{gate: make(chan struct{}), started: make(chan int, 16)}
	p := NewPool(m, PoolConfig{Batch: 4, Workers: 1})
	defer p.Close()
	rec := loadgentest.NewRecorder()
	in := samples(7)
	p.IssueQuery(context.Background(), in[:1], rec)
	var n int
	within(t, "the first batch reaching the model", func() { n = <-m.started })
	if n != 1 {
		t.Fatalf("first batch has %d samples, want 1 (never wait to fill a batch)", n)
	}
	for _, s := range in[1:] { // queued while the worker is busy
		p.IssueQuery(context.Background(), []loadgen.Sample{s}, rec)
	}
	close(m.gate)
	checkEcho(t, waitFor(t, rec, len(in)), in)
	var a, b int
	within(t, "the later batches reaching the model", func() { a, b = <-m.started, <-m.started })
	if a != 4 || b != 2 {
		t.Fatalf("later batches %d, %d; want 4, 2", a, b)
	}
}

func TestErrorsBecomeResponseErr(t *testing.T) {
	boom := errors.New("boom")
	models := map[string]Model{
		"error": ModelFunc(func(context.Context, []loadgen.SampleIndex, []loadgen.Response) error {
			return boom
		}),
		"panic": ModelFunc(func(context.Context, []loadgen.SampleIndex, []loadgen.Response) error {
			var m map[string]int
			m["x"]++ // nil map write panics
			return nil
		}),
		"partial data then error": ModelFunc(func(_ context.Context, _ []loadgen.SampleIndex, out []loadgen.Response) error {
			out[0].Data = []byte{1}
			return boom
		}),
	}
	suts := map[string]func(Model) (loadgen.SUT, func()){
		"inline": func(m Model) (loadgen.SUT, func()) { return NewInline(m, 2), func() {} },
		"pool": func(m Model) (loadgen.SUT, func()) {
			p := NewPool(m, PoolConfig{Batch: 2, Workers: 2})
			return p, func() { p.Close() }
		},
	}
	for mname, m := range models {
		for sname, mk := range suts {
			t.Run(mname+"/"+sname, func(t *testing.T) {
				sut, done := mk(m)
				defer done()
				rec := loadgentest.NewRecorder()
				in := samples(5)
				sut.IssueQuery(context.Background(), in, rec)
				got := waitFor(t, rec, len(in))
				for _, s := range in {
					r := got[s.ID]
					if r.Err == nil {
						t.Fatalf("ID %d: no error", s.ID)
					}
					if r.Data != nil {
						t.Fatalf("ID %d: data %x alongside error", s.ID, r.Data)
					}
					if mname == "error" && !errors.Is(r.Err, boom) {
						t.Fatalf("ID %d: error %v does not wrap the model's", s.ID, r.Err)
					}
				}
			})
		}
	}
}

func TestPerSampleErrors(t *testing.T) {
	m := &echoModel{fail: map[loadgen.SampleIndex]bool{3: true}}
	p := NewPool(m, PoolConfig{Batch: 4, Workers: 1})
	defer p.Close()
	rec := loadgentest.NewRecorder()
	in := samples(4) // indices 0, 3, 6, 9
	p.IssueQuery(context.Background(), in, rec)
	got := waitFor(t, rec, 4)
	for _, s := range in {
		if bad := got[s.ID].Err != nil; bad != (s.Index == 3) {
			t.Fatalf("index %d: err %v", s.Index, got[s.ID].Err)
		}
	}
}

func TestCancelledContextFailsSamples(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &echoModel{}
	p := NewPool(m, PoolConfig{Batch: 2, Workers: 1})
	defer p.Close()
	rec := loadgentest.NewRecorder()
	in := samples(3)
	p.IssueQuery(ctx, in, rec)
	for _, r := range waitFor(t, rec, 3) {
		if !errors.Is(r.Err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", r.Err)
		}
	}
	if len(m.batches) != 0 {
		t.Fatalf("model ran %v on a cancelled query", m.batches)
	}
}

// within runs f and fails the test if f has not returned after a minute. It
// is a hang guard, not a timing assertion: a minute is far above any loaded
// machine's time for these steps, and a deadlock then fails this test with
// the step's name instead of stalling go test until its own timeout.
func within(t *testing.T, step string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute (deadlock?)", step)
	}
}

// waitFor is rec.Wait(n) under within's hang guard.
func waitFor(t *testing.T, rec *loadgentest.Recorder, n int) map[loadgen.ResponseID]loadgen.Response {
	t.Helper()
	var got map[loadgen.ResponseID]loadgen.Response
	within(t, fmt.Sprintf("waiting for %d responses", n), func() { got = rec.Wait(n) })
	return got
}

func TestPoolCloseCompletesQueued(t *testing.T) {
	m := &gateModel{gate: make(chan struct{}), started: make(chan int, 16)}
	p := NewPool(m, PoolConfig{Batch: 1, Workers: 1})
	rec := loadgentest.NewRecorder()
	in := samples(3)
	p.IssueQuery(context.Background(), in, rec)
	within(t, "first sample reaching the model", func() { <-m.started }) // the worker holds sample 0; 1 and 2 are queued
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	within(t, "Close taking the queue", func() {
		for { // open the gate only once Close has taken the queue
			p.mu.Lock()
			c := p.closed
			p.mu.Unlock()
			if c {
				return
			}
			runtime.Gosched()
		}
	})
	close(m.gate)
	within(t, "Close returning", func() { <-closed })
	got := waitFor(t, rec, 3)
	if got[in[0].ID].Err != nil {
		t.Fatalf("running sample failed: %v", got[in[0].ID].Err)
	}
	for _, s := range in[1:] {
		if !errors.Is(got[s.ID].Err, ErrClosed) {
			t.Fatalf("queued sample: err %v, want ErrClosed", got[s.ID].Err)
		}
	}
	// After Close, new samples fail at once.
	rec2 := loadgentest.NewRecorder()
	p.IssueQuery(context.Background(), samples(2), rec2)
	for _, r := range waitFor(t, rec2, 2) {
		if !errors.Is(r.Err, ErrClosed) {
			t.Fatalf("after close: err %v", r.Err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// funcCompleter is a Completer of a type that cannot be compared with ==.
type funcCompleter func(...loadgen.Response)

func (f funcCompleter) Complete(r ...loadgen.Response) { f(r...) }

func TestPoolUncomparableCompleter(t *testing.T) {
	rec := loadgentest.NewRecorder()
	c := funcCompleter(rec.Complete)
	p := NewPool(&echoModel{}, PoolConfig{Batch: 4, Workers: 1})
	defer p.Close()
	in := samples(6)
	p.IssueQuery(context.Background(), in, c)
	checkEcho(t, waitFor(t, rec, 6), in)
}

func TestForScenario(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		inline   bool
	}{
		{"SingleStream", true}, {"MultiStream", false}, {"Server", false}, {"Offline", false},
	} {
		c := &countingModel{Model: &echoModel{}}
		sut, closeFn, err := ForScenario(tc.scenario, c, PoolConfig{Batch: 2})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := sut.(*Inline); ok != tc.inline {
			t.Fatalf("%s: %T", tc.scenario, sut)
		}
		rec := loadgentest.NewRecorder()
		in := samples(3)
		sut.IssueQuery(context.Background(), in, rec)
		checkEcho(t, waitFor(t, rec, 3), in)
		if err := closeFn(); err != nil {
			t.Fatal(err)
		}
		if n := c.n.Load(); n != 3 {
			t.Fatalf("%s: the model ran %d samples, want 3", tc.scenario, n)
		}
	}
	if _, _, err := ForScenario("Batch", &echoModel{}, PoolConfig{}); err == nil {
		t.Fatal("unknown scenario: no error")
	}
}

// waitLog records queue waits.
type waitLog struct {
	mu sync.Mutex
	ns []int64
}

func (w *waitLog) Record(ns int64) {
	w.mu.Lock()
	w.ns = append(w.ns, ns)
	w.mu.Unlock()
}

// sleepModel holds each Predict for d.
type sleepModel struct {
	d    time.Duration
	echo echoModel
}

func (m *sleepModel) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	time.Sleep(m.d)
	return m.echo.Predict(ctx, idx, out)
}

// TestPoolQueueWait: with one worker busy 20 ms per sample, the samples
// of one query wait about 0, 20 and 40 ms in the queue; each is recorded
// once.
func TestPoolQueueWait(t *testing.T) {
	var w waitLog
	const d = 20 * time.Millisecond
	p := NewPool(&sleepModel{d: d}, PoolConfig{Batch: 1, Workers: 1, QueueWait: &w})
	defer p.Close()
	rec := loadgentest.NewRecorder()
	in := samples(3)
	p.IssueQuery(context.Background(), in, rec)
	checkEcho(t, waitFor(t, rec, len(in)), in)
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.Sort(w.ns)
	if len(w.ns) != 3 || w.ns[0] < 0 || w.ns[1] < int64(d) || w.ns[2] < int64(2*d) {
		t.Fatalf("queue waits %v ns, want 3 of about 0, 20 ms and 40 ms", w.ns)
	}
}

// TestPoolSendLag: a worker records, per sample, the time since the
// sample's scheduled time when it takes it; samples without one (every
// scenario but Server) are not recorded.
func TestPoolSendLag(t *testing.T) {
	var lag waitLog
	p := NewPool(&sleepModel{d: time.Millisecond}, PoolConfig{Batch: 1, Workers: 1, SendLag: &lag})
	defer p.Close()
	due := loadgen.Now() - loadgen.Instant(5*time.Millisecond)
	in := samples(3)
	in[0].Scheduled, in[2].Scheduled = due, due
	rec := loadgentest.NewRecorder()
	p.IssueQuery(context.Background(), in, rec)
	waitFor(t, rec, len(in))
	lag.mu.Lock()
	defer lag.mu.Unlock()
	if len(lag.ns) != 2 {
		t.Fatalf("recorded %d send lags, want 2 (the samples with a scheduled time): %v", len(lag.ns), lag.ns)
	}
	for _, v := range lag.ns {
		if v < int64(5*time.Millisecond) {
			t.Errorf("send lag %d ns for a sample due 5 ms before it was issued", v)
		}
	}
}

type ctxKey struct{}

// ctxModel records, per Predict call, the batch size and the value its
// context carries under ctxKey.
type ctxModel struct {
	mu      sync.Mutex
	gate    chan struct{}
	started chan int
	values  []any
}

func (m *ctxModel) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	m.started <- len(idx)
	<-m.gate
	m.mu.Lock()
	m.values = append(m.values, ctx.Value(ctxKey{}))
	m.mu.Unlock()
	for i, x := range idx {
		out[i].Data = binary.LittleEndian.AppendUint32(nil, uint32(x))
	}
	return nil
}

// TestPoolSplitsABatchMixingContexts: samples of queries with different
// contexts or completers, queued together, are predicted in one run per
// context and completer, each under its own context and answered to its own
// completer; a cancelled query's samples fail without reaching the model.
func TestPoolSplitsABatchMixingContexts(t *testing.T) {
	m := &ctxModel{gate: make(chan struct{}), started: make(chan int, 16)}
	p := NewPool(m, PoolConfig{Batch: 8, Workers: 1})
	defer p.Close()
	rec, recB := loadgentest.NewRecorder(), loadgentest.NewRecorder()
	in := samples(6)
	p.IssueQuery(context.Background(), in[:1], rec)
	within(t, "the first batch reaching the model", func() { <-m.started })
	a := context.WithValue(context.Background(), ctxKey{}, "a")
	b := context.WithValue(context.Background(), ctxKey{}, "b")
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	// Queued while the worker is busy: one batch [a | b b b | dead].
	p.IssueQuery(a, in[1:2], rec)
	p.IssueQuery(b, in[2:5], recB)
	p.IssueQuery(dead, in[5:], rec)
	close(m.gate)
	got := waitFor(t, rec, 3)
	gotB := waitFor(t, recB, 3)
	sizes := []int{1}
	for range 2 {
		within(t, "the later batches reaching the model", func() { sizes = append(sizes, <-m.started) })
	}
	m.mu.Lock()
	values := slices.Clone(m.values)
	m.mu.Unlock()
	if !slices.Equal(sizes, []int{1, 1, 3}) || !slices.Equal(values, []any{nil, "a", "b"}) {
		t.Fatalf("batches %v under contexts %v, want [1 1 3] under [<nil> a b]: one run per context", sizes, values)
	}
	checkEcho(t, map[loadgen.ResponseID]loadgen.Response{in[0].ID: got[in[0].ID], in[1].ID: got[in[1].ID]}, in[:2])
	checkEcho(t, gotB, in[2:5])
	if !errors.Is(got[in[5].ID].Err, context.Canceled) {
		t.Errorf("sample of the cancelled query: err %v, want context.Canceled", got[in[5].ID].Err)
	}
	// The same context, two completers: two runs, each answered to its own.
	m.gate = make(chan struct{})
	more := samples(9)[6:]
	rec1, rec2 := loadgentest.NewRecorder(), loadgentest.NewRecorder()
	p.IssueQuery(a, more[:1], rec1)
	within(t, "the blocking batch reaching the model", func() { <-m.started })
	p.IssueQuery(b, more[1:2], rec1)
	p.IssueQuery(b, more[2:], rec2)
	close(m.gate)
	checkEcho(t, waitFor(t, rec2, 1), more[2:])
	g1 := waitFor(t, rec1, 2)
	checkEcho(t, map[loadgen.ResponseID]loadgen.Response{more[1].ID: g1[more[1].ID]}, more[1:2])
}

// TestPoolRecordLagsSubtractsTheQueueTime: a sample queued at 30 ns and
// taken at 100 ns waited 70 ns; its send lag is the time since its
// scheduled time, and a sample with no scheduled time has none.
func TestPoolRecordLagsSubtractsTheQueueTime(t *testing.T) {
	var wait, lag waitLog
	p := NewPool(&echoModel{}, PoolConfig{Workers: 1, QueueWait: &wait, SendLag: &lag})
	defer p.Close()
	now := loadgen.Instant(100)
	p.recordLags([]queued{
		{at: 30, s: loadgen.Sample{Scheduled: 55}},
		{at: 100},
	}, now)
	if !slices.Equal(wait.ns, []int64{70, 0}) || !slices.Equal(lag.ns, []int64{45}) {
		t.Fatalf("waits %v, lags %v; want [70 0], [45]", wait.ns, lag.ns)
	}
}

// TestPoolDrainedQueueDropsItsArray: once the workers take the last queued
// sample, the queue holds no backing array (a burst's array is not kept).
func TestPoolDrainedQueueDropsItsArray(t *testing.T) {
	p := NewPool(&echoModel{}, PoolConfig{Batch: 4, Workers: 1})
	defer p.Close()
	rec := loadgentest.NewRecorder()
	in := samples(6)
	p.IssueQuery(context.Background(), in, rec)
	checkEcho(t, waitFor(t, rec, len(in)), in)
	p.mu.Lock()
	n, c := len(p.queue), cap(p.queue)
	p.mu.Unlock()
	if n != 0 || c != 0 {
		t.Fatalf("drained queue: len %d cap %d, want 0 0", n, c)
	}
}

// countingModel counts the samples its model is asked to run.
type countingModel struct {
	Model
	n atomic.Int64
}

func (c *countingModel) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	c.n.Add(int64(len(idx)))
	return c.Model.Predict(ctx, idx, out)
}
