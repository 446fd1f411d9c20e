//go:build cgo

package llama2

import (
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx/torchgolden"
)

// The goldens in testdata/torch come from PyTorch 1.13 (Debian's
// python3-torch) by make_torch_small.py: a Llama 2 decoder as
// transformers' modeling_llama, written with torch.nn layers at 2 layers of
// width 32, exported in the optimum "with past" I/O with seeded weights;
// the same weights in this package's builder names; PyTorch's logits of a
// left-padded prefill and of one cached step; and 8 greedy tokens per
// prompt.

const torchDir = "testdata/torch"

// torchSmall is make_torch_small.py's configuration.
var torchSmall = config{Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 97, MaxPositions: 256, RopeTheta: 10000, RMSEps: 1e-5}

var torchPrompts = [][]int32{{1, 5, 17, 33}, {1, 40, 8, 61, 22, 90}}

func compareTorch(t *testing.T, s backend.Session) {
	t.Helper()
	decodertest.CheckTorchGolden(t, s, torchSmall.Spec(), torchDir, torchPrompts, 2, 8)
}

// TestTorchExportMatchesPyTorch runs the PyTorch-exported decoder through
// ONNX Runtime and llm/generate: logits, cache and greedy tokens are
// PyTorch's.
func TestTorchExportMatchesPyTorch(t *testing.T) {
	s := orttest.Open(t, filepath.Join(torchDir, "torch_small.onnx"))
	compareTorch(t, s)
}

// TestArchWithTorchWeightsMatchesPyTorch gives this package's builder, at
// the same configuration, PyTorch's weights: RMSNorm, rotary embeddings,
// grouped-query attention, masks, the gated MLP and the cache I/O then
// compute PyTorch's numbers.
func TestArchWithTorchWeightsMatchesPyTorch(t *testing.T) {
	g, err := arch(torchSmall, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	if err := torchgolden.UseWeights(g, torchDir); err != nil {
		t.Fatal(err)
	}
	s := orttest.OpenGraph(t, g)
	compareTorch(t, s)
}
