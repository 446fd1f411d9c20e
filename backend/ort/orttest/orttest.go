// Package orttest holds the test helpers of code that runs models on ONNX
// Runtime.
package orttest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/onnx"
)

// Need skips the test when the ONNX Runtime library is not installed (the
// one named cause a test of a model on the engine may skip for) and fails
// it when the library is there but does not load.
func Need(t testing.TB) {
	t.Helper()
	if err := ort.Init(); err != nil {
		if errors.Is(err, ort.ErrNoLibrary) {
			t.Skipf("ONNX Runtime not available: %v", err)
		}
		t.Fatal(err)
	}
}

// Open is Need, then opens the model file at path on one intra-op thread
// (repeatable numbers) and closes it when the test ends.
func Open(t testing.TB, path string) backend.Session {
	t.Helper()
	Need(t)
	s, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// OpenGraph is Open for a graph built in memory.
func OpenGraph(t testing.TB, g *onnx.Graph) backend.Session {
	t.Helper()
	Need(t)
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := ort.OpenBytes(buf.Bytes(), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
