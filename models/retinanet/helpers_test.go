package retinanet

import (
	"errors"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
)

func needORT(t testing.TB) {
	t.Helper()
	if err := ort.Init(); err != nil {
		if errors.Is(err, ort.ErrNoLibrary) {
			t.Skipf("ONNX Runtime not available: %v", err)
		}
		t.Fatal(err)
	}
}
