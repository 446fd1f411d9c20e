package loadgen

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Monitor watches a run while it runs, for progress lines: Run publishes
// each series of queries to the Monitor of its LogSettings, and Poll,
// called from another goroutine, reads the series' state. The run's side
// costs one pointer store a series: Poll reads the completion slots the
// run writes anyway, with atomic loads, and keeps its own bookkeeping.
// The zero value is ready to use; Poll is safe for concurrent use.
type Monitor struct {
	cur atomic.Pointer[runState]

	mu      sync.Mutex
	rs      *runState // the series the fields below describe
	counted []uint64  // per sample bit: passed to Poll's callback
	next    int       // every sample below has been counted
	scan    int       // where the next bounded scan resumes
	nCount  int
	nFailed int
	over    int // counted samples over the bound
}

// Progress is a series' state when Poll read it.
type Progress struct {
	Scenario Scenario
	// Accuracy marks an accuracy series (every sample once, no bound).
	Accuracy bool
	// Elapsed is the time since the series' first query was due.
	Elapsed time.Duration
	// Queries and Samples are the series' generated queries and samples;
	// SamplesPerQuery their ratio. SingleStream and MultiStream stop
	// early, once MinQueries are issued and MinDuration has passed.
	Queries, Samples, SamplesPerQuery int
	MinQueries                        int
	MinDuration                       time.Duration
	// ScheduleEnd (Server) is when the last query is due.
	ScheduleEnd time.Duration
	// Issued and Completed count samples; Failed those completed with an
	// error.
	Issued, Completed, Failed int
	// Bound is the latency bound the run is judged against (Server; with
	// token latencies the time to first token's), Percentile the share of
	// samples that must be under it; 0 where there is none. BoundWhat
	// names it ("latency", "time to first token").
	Bound      time.Duration
	Percentile float64
	BoundWhat  string
	// Counted are the completed samples whose latency Poll has passed to
	// its callback so far, OverBound those of them over the bound, and
	// OutstandingOver the samples still outstanding longer than the bound
	// (over it already, whenever they complete).
	Counted, OverBound, OutstandingOver int
}

// publish makes r the series Poll reads (nil: none).
func (m *Monitor) publish(r *runState) {
	if m != nil {
		m.cur.Store(r)
	}
}

// maxScan bounds the samples one Poll looks at, so that a straggler early
// in a long run cannot make each Poll walk the whole series.
const maxScan = 1 << 22

// Poll returns the current series' state, and false when no series is
// running. lat, when set, gets the latency in ns of each sample completed
// without an error since the last Poll (each sample once; with token
// latencies, the time to its first token).
func (m *Monitor) Poll(lat func(ns int64)) (Progress, bool) {
	r := m.cur.Load()
	if r == nil {
		return Progress{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rs != r {
		m.rs, m.counted = r, make([]uint64, (len(r.done)+63)/64)
		m.next, m.scan, m.nCount, m.nFailed, m.over = 0, 0, 0, 0, 0
	}
	e := r.e
	now := r.now()
	p := Progress{
		Scenario: e.scenario, Accuracy: r.logAll, Elapsed: time.Duration(max(now-r.start, 0)),
		Queries: len(r.remain), Samples: len(r.done), SamplesPerQuery: r.spq,
		MinQueries: int(e.minQueryCount), MinDuration: time.Duration(e.minDurationMs) * time.Millisecond,
		Failed: int(r.failed.Load()),
	}
	tokens := r.first != nil
	if !p.Accuracy && e.scenario == Server {
		p.Bound, p.Percentile, p.BoundWhat = time.Duration(e.targetLatencyNs), e.targetLatencyPercentile, "latency"
		if tokens {
			p.Bound, p.BoundWhat = time.Duration(e.req.ServerTTFTLatencyNs), "time to first token"
		}
	}
	// sched is a query's scheduled time (ns since base): Server's come
	// from the generated schedule, SingleStream's and MultiStream's are
	// stored as each query goes out, Offline's (and Server accuracy
	// mode's) are the start.
	var sched func(q int) int64
	issuedQ := p.Queries
	switch {
	case e.scenario == Server && !p.Accuracy:
		p.ScheduleEnd = time.Duration(r.q.Scheduled[len(r.q.Scheduled)-1])
		issuedQ = sort.Search(len(r.q.Scheduled), func(i int) bool { return r.start+r.q.Scheduled[i] > now })
		sched = func(q int) int64 { return r.start + r.q.Scheduled[q] }
	case e.scenario == SingleStream || e.scenario == MultiStream:
		issuedQ = min(int(r.waitQ.Load())+1, p.Queries)
		sched = func(q int) int64 { return atomic.LoadInt64(&r.sched[q]) }
	default:
		sched = func(int) int64 { return r.start }
	}
	p.Issued = issuedQ * r.spq
	bound := int64(p.Bound)
	outstandingOver := 0
	// Count the completions since the last Poll: from the first sample
	// not yet counted, at most maxScan samples a call.
	from := max(m.scan, m.next)
	if from >= p.Issued {
		from = m.next
	}
	end := min(p.Issued, from+maxScan)
	contiguous := from == m.next
	for i := from; i < end; i++ {
		if m.counted[i/64]&(1<<(i%64)) != 0 {
			if contiguous {
				m.next = i + 1
			}
			continue
		}
		s := sched(i / r.spq)
		d := atomic.LoadInt64(&r.done[i])
		if d == 0 {
			contiguous = false
			if bound > 0 && s > 0 && now-s > bound {
				outstandingOver++
			}
			continue
		}
		m.counted[i/64] |= 1 << (i % 64)
		if contiguous {
			m.next = i + 1
		}
		if atomic.LoadUint64(&r.failMask[i/64])&(1<<(i%64)) != 0 {
			m.nFailed++
			continue
		}
		v := d - s
		if tokens {
			if f := atomic.LoadInt64(&r.first[i]); f > 0 {
				v = f - s
			}
		}
		m.nCount++
		if bound > 0 && v > bound {
			m.over++
		}
		if lat != nil {
			lat(v)
		}
	}
	m.scan = end
	p.Counted, p.OverBound, p.OutstandingOver = m.nCount, m.over, outstandingOver
	// Complete stores a batch's completion times before it counts them:
	// read the count after the scan, and never below what the scan saw.
	p.Completed = max(int(r.complete.Load()-r.extra.Load()), m.nCount+m.nFailed)
	p.Issued = max(p.Issued, p.Completed) // issued since the schedule was read
	return p, true
}
