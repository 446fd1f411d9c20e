package backendtest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/backend"
)

func TestSessionRecordsBatchesAndErrors(t *testing.T) {
	s := &Session{RunFunc: func(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) { return in, nil }}
	for _, n := range []int64{3, 1} {
		if _, err := s.Run(context.Background(), []backend.Tensor{{Shape: []int64{n, 2}}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Batches(); !slices.Equal(got, []int64{3, 1}) {
		t.Errorf("batches %v, want [3 1]", got)
	}
	s.Err = errors.New("engine on fire")
	if _, err := s.Run(context.Background(), nil); !errors.Is(err, s.Err) {
		t.Errorf("Run with Err set: %v", err)
	}
	if _, err := (&Session{}).Run(context.Background(), nil); !errors.Is(err, ErrNoEngine) {
		t.Errorf("Run without RunFunc: %v", err)
	}
	s.Close()
	if !s.Closed() {
		t.Error("Closed after Close is false")
	}
}
