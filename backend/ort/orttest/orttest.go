// Package orttest holds the test helpers of code that runs models on ONNX
// Runtime.
package orttest

import (
	"errors"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
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
