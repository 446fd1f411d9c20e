package loadgen

import (
	"fmt"
	"strconv"
)

// traceSamples writes one async "Sample" begin/end pair per completed
// sample of a series to the Chrome trace: begin at the scheduled time, end
// at completion, timestamps in µs from the start of the run.
func (lw *logWriter) traceSamples(r *runState, issued int) {
	if lw.trace == nil {
		return
	}
	us := func(ns int64) string { return strconv.FormatFloat(float64(ns-1)/1e3, 'f', 3, 64) }
	for i := 0; i < issued*r.spq; i++ {
		done := r.done[i]
		if done == 0 {
			continue
		}
		q := i / r.spq
		seq := r.seqBase + uint64(i)
		fmt.Fprintf(lw.trace, `{"name":"Sample","ph":"b","cat":"default","id":%d,"ts":%s,"pid":%d,"tid":%d,"args":{"sample_seq":%d,"query_seq":%d,"sample_idx":%d,"issue_start_ns":%d,"complete_ns":%d}},`+"\n",
			seq, us(r.sched[q]), lw.pid, lw.pid, seq, q, r.q.Samples[i], r.sched[q]-1, done-1)
		fmt.Fprintf(lw.trace, `{"name":"Sample","ph":"e","cat":"default","id":%d,"ts":%s,"pid":%d,"tid":%d},`+"\n", seq, us(done), lw.pid, lw.pid)
	}
}
