package loadgen

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/mlperf-go/inference/loadgen/querylog"
)

// recordSeries appends a performance series' per-query record (package
// querylog) to the record file, made at the first series: the times the
// run measured anyway (each query's scheduled and issue times, each
// sample's completion and, with token latencies, first-token time and
// token count), read after the series from the slots the run filled, so
// that the record costs nothing while the run is timed. Times are ns
// since the logs' time zero, as the trace's. A write error ends the
// record, with a generic message in the detail log (not an error entry:
// the record is not LoadGen's, and its loss does not make the run
// invalid); the run goes on.
func (lw *logWriter) recordSeries(r *runState, issued int) {
	if !lw.settings.QueryRecord || lw.closed {
		return
	}
	if lw.queries == nil {
		f, err := os.Create(lw.names["queries"])
		if err != nil {
			lw.message(fmt.Sprintf("mlperf-go: cannot write the per-query record: %v", err))
			lw.settings.QueryRecord = false
			return
		}
		lw.queriesF, lw.queries = f, querylog.NewWriter(f)
	}
	eps := lw.settings.Endpoints
	if len(eps) > querylog.MaxEndpoints {
		eps = eps[:querylog.MaxEndpoints]
	}
	of := lw.settings.EndpointOf
	if len(eps) == 0 {
		of = nil
	}
	h := querylog.Header{Scenario: uint8(r.e.scenario), SamplesPerQuery: r.spq, Queries: issued, FirstSeq: r.seqBase,
		TimeZero: lw.base, Tokens: r.first != nil, Endpoints: eps}
	if err := lw.queries.Begin(h); err != nil {
		lw.message(fmt.Sprintf("mlperf-go: per-query record: %v", err))
		return
	}
	for q := 0; q < issued; q++ {
		s := r.sched[q] - 1
		is := s
		if r.lag != nil {
			is += r.lag[q]
		}
		lw.queries.Query(s, is)
	}
	for i := 0; i < issued*r.spq; i++ {
		// A sample the completion timeout gave up on may still complete
		// now: its slots are read atomically.
		d := atomic.LoadInt64(&r.done[i])
		x := querylog.Sample{Completed: d - 1, QSLIndex: uint32(r.q.Samples[i]), Endpoint: querylog.NoEndpoint, FirstToken: -1,
			Failed: atomic.LoadUint64(&r.failMask[i/64])&(1<<(i%64)) != 0}
		if d == 0 {
			x.Completed = -1
		}
		if r.first != nil {
			if f := atomic.LoadInt64(&r.first[i]); f > 0 {
				x.FirstToken = f - 1
			}
			x.Tokens = atomic.LoadInt32(&r.tokens[i])
		}
		if of != nil {
			if e := of(ResponseID(r.seqBase + uint64(i))); int(e) < len(eps) {
				x.Endpoint = e
			}
		}
		lw.queries.Sample(x)
	}
	if err := lw.queries.End(); err != nil {
		lw.message(fmt.Sprintf("mlperf-go: writing the per-query record: %v", err))
		lw.settings.QueryRecord = false
	}
}
