//go:build cgo

package resnet50

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx/torchgolden"
)

// The goldens in testdata/torch come from PyTorch 1.13 (Debian's
// python3-torch) by make_torch_tiny.py: a tiny ResNet50 v1.5 built and
// exported by torch.onnx.export with seeded weights, the same weights in
// this package's builder names, and PyTorch's softmax on fixed inputs.

const torchDir = "testdata/torch"

// torchInputs are make_torch_tiny.py's inputs: x[n,c,h,w] =
// ((n*131 + c*71 + h*(31+40n) + w*(17+23n)) % 251) - 125.
func torchInputs() []float32 {
	x := make([]float32, 0, 2*SampleLen)
	for n := range 2 {
		for c := range 3 {
			for h := range inputSize {
				for w := range inputSize {
					x = append(x, float32((n*131+c*71+h*(31+40*n)+w*(17+23*n))%251-125))
				}
			}
		}
	}
	return x
}

// torchWant returns PyTorch's softmax [2×1001] and ArgMax.
func torchWant(t *testing.T) ([]float32, []int64) {
	t.Helper()
	shape, sm, err := torchgolden.ReadNpy(torchDir, "softmax.npy")
	if err != nil || len(shape) != 2 || shape[0] != 2 || shape[1] != classes {
		t.Fatalf("softmax.npy: shape %v, %v", shape, err)
	}
	data, err := os.ReadFile(filepath.Join(torchDir, "argmax.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var am []int64
	for _, s := range strings.Fields(string(data)) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		am = append(am, v)
	}
	return sm, am
}

// runTorchCompare runs a session on the inputs and compares its softmax
// and ArgMax with PyTorch's: absolute 2e-6 or relative 1e-4 per value.
func runTorchCompare(t *testing.T, s backend.Session) {
	t.Helper()
	out, err := s.Run(context.Background(), []backend.Tensor{{Name: InputName, DType: backend.Float32,
		Shape: []int64{2, 3, inputSize, inputSize}, Data: torchInputs()}})
	if err != nil {
		t.Fatal(err)
	}
	var am []int64
	var sm []float32
	for _, o := range out {
		switch o.Name {
		case ArgMaxName:
			am = o.Data.([]int64)
		case SoftmaxName:
			sm = o.Data.([]float32)
		}
	}
	wantSM, wantAM := torchWant(t)
	if bad, first := torchgolden.Diff(sm, wantSM, 2e-6, 1e-4); bad > 0 {
		t.Errorf("%d of %d probabilities differ from PyTorch's: %s", bad, len(wantSM), first)
	}
	if len(am) != len(wantAM) {
		t.Fatalf("%d classes, want %d", len(am), len(wantAM))
	}
	for i := range wantAM {
		if am[i] != wantAM[i] {
			t.Errorf("image %d: ArgMax %d, PyTorch %d", i, am[i], wantAM[i])
		}
	}
}

// TestTorchExportMatchesPyTorch runs the PyTorch-exported tiny ResNet50
// through ONNX Runtime and this package's model wrapper: the outputs are
// PyTorch's, and Classify (contract check, batching) returns its classes.
func TestTorchExportMatchesPyTorch(t *testing.T) {
	s := orttest.Open(t, filepath.Join(torchDir, "torch_tiny.onnx"))
	runTorchCompare(t, s)
	m, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, wantAM := torchWant(t)
	x := torchInputs()
	for i := range 2 {
		got, err := m.Classify(context.Background(), x[i*SampleLen:(i+1)*SampleLen], 1)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != wantAM[i] {
			t.Errorf("image %d: Classify %d, PyTorch %d", i, got[0], wantAM[i])
		}
	}
}

// TestArchTinyWithTorchWeightsMatchesPyTorch gives this package's tiny
// synthetic ResNet50 PyTorch's weights (weights.bin, in the builder's
// names) and checks that it computes PyTorch's outputs: the builder's
// graph is the architecture PyTorch built (padding, strides, shortcuts,
// batch norm, heads).
func TestArchTinyWithTorchWeightsMatchesPyTorch(t *testing.T) {
	g, err := arch(sizeTiny, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	if err := torchgolden.UseWeights(g, torchDir); err != nil {
		t.Fatal(err)
	}
	s := orttest.OpenGraph(t, g)
	runTorchCompare(t, s)
}
