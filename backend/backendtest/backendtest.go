// Package backendtest holds a fake backend.Session for tests of the code
// above the engine (models' tensor binding, harnesses, generators).
package backendtest

import (
	"context"
	"errors"
	"sync"

	"github.com/mlperf-go/inference/backend"
)

// Session is a backend.Session with declared inputs and outputs whose Run
// calls RunFunc (nil: Run fails, for tests of the declared I/O alone). It
// records the batch size (the first input's first dimension) of every
// call. It is safe for concurrent use if RunFunc is.
type Session struct {
	In, Out []backend.Info
	// RunFunc computes the outputs of one call.
	RunFunc func(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error)
	// Err, when set, is returned by every Run before RunFunc is called.
	Err error

	mu      sync.Mutex
	batches []int64
	closed  bool
}

// ErrNoEngine is Run's error when the Session has no RunFunc.
var ErrNoEngine = errors.New("backendtest: session has no engine (RunFunc is nil)")

// Inputs implements backend.Session.
func (s *Session) Inputs() []backend.Info { return s.In }

// Outputs implements backend.Session.
func (s *Session) Outputs() []backend.Info { return s.Out }

// Run implements backend.Session.
func (s *Session) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	if s.Err != nil {
		return nil, s.Err
	}
	if s.RunFunc == nil {
		return nil, ErrNoEngine
	}
	if len(in) > 0 && len(in[0].Shape) > 0 {
		s.mu.Lock()
		s.batches = append(s.batches, in[0].Shape[0])
		s.mu.Unlock()
	}
	return s.RunFunc(ctx, in)
}

// Close implements backend.Session; Closed reports whether it was called.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// Closed reports whether Close was called.
func (s *Session) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Batches returns the batch sizes of the calls so far, in call order.
func (s *Session) Batches() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.batches...)
}
