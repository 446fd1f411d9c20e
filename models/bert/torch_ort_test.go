//go:build cgo

package bert

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx/torchgolden"
)

// The goldens in testdata/torch come from PyTorch 1.13 (Debian's
// python3-torch) by make_torch_tiny.py: BertForQuestionAnswering at 2
// layers of width 32 written with torch.nn layers, exported by
// torch.onnx.export with seeded weights, the same weights in this package's
// builder names, and PyTorch's start and end logits on fixed inputs.

const torchDir = "testdata/torch"

// torchSmallArch is make_torch_tiny.py's configuration.
var torchSmallArch = ArchConfig{Layers: 2, Hidden: 32, Heads: 2, Intermediate: 128,
	Vocab: 1000, Positions: 384, TypeVocab: 2, SeqLen: MaxSeqLength, Eps: 1e-12}

// torchInputs are make_torch_tiny.py's inputs for 2 sequences.
func torchInputs() []backend.Tensor {
	const s = MaxSeqLength
	ids, mask, seg := make([]int64, 2*s), make([]int64, 2*s), make([]int64, 2*s)
	for n := range 2 {
		length := []int{300, 384}[n]
		for i := range s {
			ids[n*s+i] = int64((n*7 + i*13 + (i*i)%17) % 1000)
			if i < length {
				mask[n*s+i] = 1
				if i >= 24 {
					seg[n*s+i] = 1
				}
			}
		}
	}
	shape := []int64{2, s}
	return []backend.Tensor{
		{Name: inputIDs, DType: backend.Int64, Shape: shape, Data: ids},
		{Name: inputMask, DType: backend.Int64, Shape: shape, Data: mask},
		{Name: inputSegmentIDs, DType: backend.Int64, Shape: shape, Data: seg},
	}
}

// compareTorch runs s on the inputs and compares both logits with
// PyTorch's (absolute 2e-5 or relative 1e-4).
func compareTorch(t *testing.T, s backend.Session) {
	t.Helper()
	out, err := s.Run(context.Background(), torchInputs())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		file := map[string]string{outputStart: "start.npy", outputEnd: "end.npy"}[o.Name]
		if file == "" {
			continue
		}
		_, want, err := torchgolden.ReadNpy(torchDir, file)
		if err != nil {
			t.Fatal(err)
		}
		if bad, first := torchgolden.Diff(o.Data.([]float32), want, 2e-5, 1e-4); bad > 0 {
			t.Errorf("%s: %d of %d logits differ from PyTorch's: %s", o.Name, bad, len(want), first)
		}
	}
	if len(out) != 2 {
		t.Fatalf("%d outputs, want the start and end logits", len(out))
	}
}

// TestTorchExportMatchesPyTorch runs the PyTorch-exported BERT through ONNX
// Runtime: the logits are PyTorch's.
func TestTorchExportMatchesPyTorch(t *testing.T) {
	s := orttest.Open(t, filepath.Join(torchDir, "torch_small.onnx"))
	compareTorch(t, s)
}

// TestArchWithTorchWeightsMatchesPyTorch gives this package's builder, at
// the same configuration, PyTorch's weights and checks that it computes
// PyTorch's logits: embeddings, mask, attention, post-LayerNorm, GELU and
// the QA head are wired as BertForQuestionAnswering.
func TestArchWithTorchWeightsMatchesPyTorch(t *testing.T) {
	g, err := archOf(torchSmallArch, archSeed, "bert_torch_small")
	if err != nil {
		t.Fatal(err)
	}
	if err := torchgolden.UseWeights(g, torchDir); err != nil {
		t.Fatal(err)
	}
	s := orttest.OpenGraph(t, g)
	compareTorch(t, s)
}
