package harness

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Measure calls run back to back from workers goroutines (< 1 means 1)
// until d has passed, and returns the number of completed calls and the
// time from the first start to the last completion. It measures a raw
// inference engine without any harness in the way (mlperf perf). The
// first error stops every worker and is returned.
func Measure(ctx context.Context, workers int, d time.Duration, run func(ctx context.Context) error) (calls int64, elapsed time.Duration, err error) {
	workers = max(workers, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		n     atomic.Int64
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if err := run(ctx); err != nil {
					once.Do(func() { first = err })
					cancel()
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed = time.Since(start)
	if first != nil {
		return n.Load(), elapsed, first
	}
	return n.Load(), elapsed, context.Cause(ctx)
}
