package harness

import (
	"context"
	"sync"
)

// PooledFloat32 returns a Loader whose samples are n-value float32 buffers
// from a pool, filled by fill (for example an image preprocessed into
// buf), and the QSLConfig.Release that gives them back: memory for the
// loaded set is allocated once and reused across load sets. fill must be
// safe for concurrent use; on its error the buffer goes back to the pool.
func PooledFloat32(n int, fill func(ctx context.Context, buf []float32, i int) error) (Loader[[]float32], func([]float32)) {
	bufs := &sync.Pool{New: func() any { return make([]float32, n) }}
	load := func(ctx context.Context, i int) ([]float32, error) {
		buf := bufs.Get().([]float32)
		if err := fill(ctx, buf, i); err != nil {
			bufs.Put(buf)
			return nil, err
		}
		return buf, nil
	}
	release := func(s []float32) {
		if len(s) == n {
			bufs.Put(s)
		}
	}
	return load, release
}
