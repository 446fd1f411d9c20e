package kserve

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mlperf-go/inference/backend"
)

// This file is the part of the Server that both transports (REST in
// server.go, gRPC in grpc_server.go) share: finding a served model and
// running one decoded request in one of its execution slots, timed.

// lookup returns the model served under name; version "" or "1" (the only
// one). The error says what is served instead.
func (s *Server) lookup(name, version string) (*served, error) {
	s.mu.RLock()
	m := s.models[name]
	s.mu.RUnlock()
	if m == nil {
		return nil, fmt.Errorf("model %q is not served here (%s)", name, s.servedList())
	}
	if version != "" && version != "1" {
		return nil, fmt.Errorf("model %q has no version %q (only 1)", name, version)
	}
	return m, nil
}

// servedList says which models the server serves, for errors.
func (s *Server) servedList() string {
	s.mu.RLock()
	names := make([]string, 0, len(s.models))
	for n := range s.models {
		names = append(names, n)
	}
	s.mu.RUnlock()
	if len(names) == 0 {
		return "this node serves no tensor model"
	}
	sort.Strings(names)
	return "this node serves " + strings.Join(names, ", ")
}

// execute runs in on m once one of m's execution slots is free, and
// returns the outputs with Timings.Queue (the wait for the slot) and
// Timings.Infer (the run) set; the caller sets Input and Output. When ctx
// ends while waiting, the error is ctx's and nothing runs; a failed run's
// error says so.
func (m *served) execute(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, Timings, error) {
	t1 := time.Now()
	select {
	case m.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, Timings{Queue: time.Since(t1).Nanoseconds()}, ctx.Err()
	}
	t2 := time.Now()
	out, err := m.sess.Run(ctx, in)
	<-m.slot
	tm := Timings{Queue: t2.Sub(t1).Nanoseconds(), Infer: time.Since(t2).Nanoseconds()}
	if err != nil {
		return nil, tm, fmt.Errorf("inference failed: %w", err)
	}
	return out, tm, nil
}

// check refuses request tensors that do not fit m's inputs (checkInputs).
func (m *served) check(in []backend.Tensor) error {
	return checkInputs(m.meta.Name, m.inputs, in, m.maxBatch)
}

// checkDeclared is check on the tensors a request declares (name,
// datatype, shape), before their data is decoded; a datatype the
// protocol does not know is left to the decoder's error.
func (m *served) checkDeclared(n int, at func(i int) (name, datatype string, shape []int64)) error {
	ts := make([]backend.Tensor, n)
	for i := range ts {
		name, dt, shape := at(i)
		d, err := ParseDatatype(dt)
		if err != nil {
			return nil
		}
		ts[i] = backend.Tensor{Name: name, DType: d, Shape: shape}
	}
	return m.check(ts)
}

// limitText says what m's request limit is made of, for messages.
func (m *served) limitText() string {
	return fmt.Sprintf("a JSON header of up to %d bytes and the inputs of up to %d samples, this node's --max-batch", HeaderMargin, m.maxBatch)
}
