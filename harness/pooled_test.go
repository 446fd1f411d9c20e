package harness

import (
	"context"
	"errors"
	"testing"
)

// TestPooledFloat32ReusesReleasedBuffers: a released buffer of the right
// length is handed out again, a failed fill returns its buffer to the
// pool and its error, and a buffer of another length is not pooled.
func TestPooledFloat32ReusesReleasedBuffers(t *testing.T) {
	bad := errors.New("bad image")
	load, release := PooledFloat32(4, func(_ context.Context, buf []float32, i int) error {
		if i < 0 {
			return bad
		}
		for k := range buf {
			buf[k] = float32(i)
		}
		return nil
	})
	a, err := load(context.Background(), 7)
	if err != nil || len(a) != 4 || a[3] != 7 {
		t.Fatalf("load 7: %v, %v", a, err)
	}
	release(a)
	b, err := load(context.Background(), 9)
	if err != nil || len(b) != 4 || b[0] != 9 {
		t.Fatalf("load 9: %v, %v", b, err)
	}
	if &a[0] != &b[0] {
		// sync.Pool may drop items (GC); only a fresh allocation is then
		// acceptable, which the values above already checked.
		t.Logf("the released buffer was not reused (the pool was cleared)")
	}
	if _, err := load(context.Background(), -1); !errors.Is(err, bad) {
		t.Fatalf("a failed fill: %v, want %v", err, bad)
	}
	release(make([]float32, 3)) // wrong length: must not come back
	for range 4 {
		c, _ := load(context.Background(), 1)
		if len(c) != 4 {
			t.Fatalf("the pool handed out a %d-value buffer", len(c))
		}
	}
}
