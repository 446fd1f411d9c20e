package loadgen

import (
	"testing"

	"github.com/mlperf-go/inference/loadgen/schedule"
)

// BenchmarkRecordSeries is the per-query record's whole cost: writing a
// finished series' record from the run's slots, after the timed section
// (the run itself is unchanged: it fills these slots anyway). ns/sample
// is per sample of a one-sample-a-query series (a Server or SingleStream
// run); the file is 32 bytes a sample there.
func BenchmarkRecordSeries(b *testing.B) {
	for _, tokens := range []bool{false, true} {
		name := "plain"
		if tokens {
			name = "tokens"
		}
		b.Run(name, func(b *testing.B) {
			const n = 1 << 17
			lw, err := openLogs(LogSettings{OutDir: b.TempDir(), QueryRecord: true}, tokens, Server)
			if err != nil {
				b.Fatal(err)
			}
			defer lw.close()
			r := &runState{e: &effective{scenario: Server}, spq: 1, q: schedule.Queries{Samples: make([]uint64, n)},
				sched: make([]int64, n), lag: make([]int64, n), done: make([]int64, n), failMask: make([]uint64, n/64)}
			if tokens {
				r.first, r.tokens = make([]int64, n), make([]int32, n)
			}
			for i := range n {
				r.sched[i], r.lag[i], r.done[i] = int64(1000*i+1), 50, int64(1000*i+2_000_001)
				if tokens {
					r.first[i], r.tokens[i] = int64(1000*i+500_001), 128
				}
			}
			for b.Loop() {
				lw.recordSeries(r, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sample")
		})
	}
}
