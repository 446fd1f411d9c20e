package harness

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestMeasure(t *testing.T) {
	var calls atomic.Int64
	n, el, err := Measure(context.Background(), 3, 20*time.Millisecond, func(context.Context) error {
		calls.Add(1)
		time.Sleep(time.Millisecond)
		return nil
	})
	if err != nil || n != calls.Load() || n < 3 || el <= 0 {
		t.Fatalf("n %d (calls %d), elapsed %v, err %v", n, calls.Load(), el, err)
	}
	boom := errors.New("boom")
	calls.Store(0)
	n, _, err = Measure(context.Background(), 2, time.Hour, func(context.Context) error {
		if calls.Add(1) == 5 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n < 4 {
		t.Fatalf("n %d, err %v", n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Measure(ctx, 1, time.Hour, func(context.Context) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
