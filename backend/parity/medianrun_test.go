package parity

import (
	"context"
	"errors"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/backendtest"
)

// MedianRun runs the session once to warm up and then n times; a failing
// run is its error, whether the warm-up or a timed one.
func TestMedianRunWarmsUpThenRunsN(t *testing.T) {
	calls := 0
	failAt := -1
	s := &backendtest.Session{RunFunc: func(context.Context, []backend.Tensor) ([]backend.Tensor, error) {
		calls++
		if calls == failAt {
			return nil, errors.New("boom")
		}
		return nil, nil
	}}
	if _, err := MedianRun(context.Background(), s, nil, 5); err != nil || calls != 6 {
		t.Errorf("5 runs: %d calls, %v; want 6 (one warm-up)", calls, err)
	}
	for _, at := range []int{1, 4} {
		calls, failAt = 0, at
		if _, err := MedianRun(context.Background(), s, nil, 5); err == nil || err.Error() != "boom" || calls != at {
			t.Errorf("run %d failing: %v after %d calls", at, err, calls)
		}
	}
}
