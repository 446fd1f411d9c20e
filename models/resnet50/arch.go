package resnet50

import (
	"fmt"
	"io"

	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model: ResNet50 v1.5 as in the MLPerf TensorFlow
// reference (TF official resnet_model.py, resnet_version 1 with the stride on
// the 3×3 convolution), written with the onnx package under the official
// ONNX file's contract:
//
//	input  "input_tensor:0"   float32 [N, 3, 224, 224] (NCHW, mean-subtracted RGB)
//	output "ArgMax:0"         int64   [N]        argmax of the logits
//	output "softmax_tensor:0" float32 [N, 1001]  softmax of the logits
//
// Layers: 7×7/2 convolution (64) → BN → ReLU → 3×3/2 max-pool (TF "SAME":
// padding only at the bottom/right) → bottleneck stages of [3, 4, 6, 3]
// blocks with 64/128/256/512 filters (outputs ×4), the first block of each
// stage with a 1×1 projection shortcut and, from stage 2 on, stride 2 on its
// 3×3 convolution → global average pool → dense 2048→1001 (with bias) → the
// two heads. Convolutions have no bias; every one is followed by inference
// batch normalisation (ε = 1e-5) that ONNX Runtime folds into it.

// Synthetic model sizes.
const (
	// sizeFull is the real architecture (25.6 M parameters).
	sizeFull = "full"
	// sizeTiny is the same graph with every width divided by 16, for tests.
	sizeTiny = "tiny"
)

// archSeed is the weight seed used when the caller has no reason to pick
// another: the same size and seed always give the same file, byte for byte.
const archSeed uint64 = 20190312

const (
	archInput   = "input_tensor:0"
	archArgMax  = "ArgMax:0"
	archSoftmax = "softmax_tensor:0"
	archClasses = 1001
	archSide    = 224
	archBNEps   = 1e-5
)

// archStages are the blocks per stage and the stage widths of ResNet50.
var (
	archBlocks  = []int{3, 4, 6, 3}
	archFilters = []int64{64, 128, 256, 512}
)

// arch builds the ResNet50 v1.5 graph of the given size ("full" or "tiny")
// with weights drawn from seed (see onnx.Init). Weights follow He
// initialisation for convolutions and Glorot for the dense layer; batch
// normalisation statistics are drawn near identity, except that the stem's
// moving variance matches the scale of mean-subtracted pixels (≈60²), so
// activations stay O(1) through the network and the softmax is not
// saturated.
func arch(size string, seed uint64) (*onnx.Graph, error) {
	var div int64
	switch size {
	case sizeFull:
		div = 1
	case sizeTiny:
		div = 16
	default:
		return nil, fmt.Errorf("resnet50: unknown model size %q (want %s or %s)", size, sizeFull, sizeTiny)
	}
	g := onnx.NewGraph(onnx.Config{
		Name: "resnet50_v1.5_" + size,
		Seed: seed,
		Doc:  fmt.Sprintf("ResNet50 v1.5 (%s), synthetic weights, seed %d: performance only, accuracy not meaningful", size, seed),
	})
	b := archBuilder{g: g}
	x := g.Input(archInput, onnx.Float, onnx.Sym("N"), onnx.Fix(3), onnx.Fix(archSide), onnx.Fix(archSide))

	stem := 64 / div
	x = b.convBN("conv1", x, 3, stem, 7, 2, []int64{3, 3, 3, 3}, archGamma, onnx.Uniform(2500, 5000))
	x = g.Relu(x)
	x = g.MaxPool(x, []int64{3, 3}, onnx.ConvOpts{Strides: []int64{2, 2}, Pads: []int64{0, 0, 1, 1}})

	in := stem
	for s, n := range archBlocks {
		f := archFilters[s] / div
		for i := range n {
			stride := int64(1)
			if i == 0 && s > 0 {
				stride = 2
			}
			x = b.bottleneck(fmt.Sprintf("layer%d.%d", s+1, i), x, in, f, stride, i == 0)
			in = 4 * f
		}
	}
	x = g.Flatten(g.GlobalAveragePool(x), 1)
	w := g.Param("fc.weight", onnx.Float, []int64{in, archClasses}, onnx.Xavier(in, archClasses))
	bias := g.Param("fc.bias", onnx.Float, []int64{archClasses}, onnx.Uniform(-0.01, 0.01))
	logits := g.Gemm(x, w, bias, false, false)
	g.Node("ArgMax", []string{logits}, []string{archArgMax}, onnx.IntAttr("axis", 1), onnx.IntAttr("keepdims", 0))
	g.Node("Softmax", []string{logits}, []string{archSoftmax}, onnx.IntAttr("axis", 1))
	g.Output(archArgMax, onnx.Int64, onnx.Sym("N"))
	g.Output(archSoftmax, onnx.Float, onnx.Sym("N"), onnx.Fix(archClasses))
	if err := g.Err(); err != nil {
		return nil, fmt.Errorf("resnet50: build %s model: %w", size, err)
	}
	return g, nil
}

type archBuilder struct{ g *onnx.Graph }

// BN scales: near one inside a block; small on the two paths that sum into
// the residual stream (block output and projection), so that the stream's
// scale does not compound over 16 blocks.
var (
	archGamma         = onnx.Uniform(0.9, 1.1)
	archResidualGamma = onnx.Uniform(0.5, 0.7)
)

// convBN appends a bias-free k×k convolution from cin to cout channels and
// its batch normalisation; movingVar draws the BN moving variance.
func (b archBuilder) convBN(name, x string, cin, cout, k, stride int64, pads []int64, gamma, movingVar onnx.Init) string {
	g := b.g
	w := g.Param(name+".weight", onnx.Float, []int64{cout, cin, k, k}, onnx.He(cin*k*k))
	y := g.Conv(x, w, "", onnx.ConvOpts{Strides: []int64{stride, stride}, Pads: pads})
	return g.BatchNorm(y,
		g.Param(name+".bn.gamma", onnx.Float, []int64{cout}, gamma),
		g.Param(name+".bn.beta", onnx.Float, []int64{cout}, onnx.Uniform(-0.05, 0.05)),
		g.Param(name+".bn.moving_mean", onnx.Float, []int64{cout}, onnx.Uniform(-0.05, 0.05)),
		g.Param(name+".bn.moving_variance", onnx.Float, []int64{cout}, movingVar),
		archBNEps)
}

// bottleneck appends one v1.5 bottleneck block: 1×1 (f) → 3×3/stride (f) →
// 1×1 (4f), plus the shortcut (a 1×1/stride projection when project).
func (b archBuilder) bottleneck(name, x string, cin, f, stride int64, project bool) string {
	g := b.g
	unit := onnx.Uniform(0.8, 1.2)
	shortcut := x
	if project {
		shortcut = b.convBN(name+".downsample", x, cin, 4*f, 1, stride, nil, archResidualGamma, unit)
	}
	y := g.Relu(b.convBN(name+".conv1", x, cin, f, 1, 1, nil, archGamma, unit))
	y = g.Relu(b.convBN(name+".conv2", y, f, f, 3, stride, []int64{1, 1, 1, 1}, archGamma, unit))
	y = b.convBN(name+".conv3", y, f, 4*f, 1, 1, nil, archResidualGamma, unit)
	return g.Relu(g.Add(y, shortcut))
}

// build writes the ResNet50 model of the given size and seed to w as one
// ONNX protobuf (about 102 MB for full). The same arguments always write the
// same bytes.
func build(w io.Writer, size string, seed uint64) error {
	g, err := arch(size, seed)
	if err != nil {
		return err
	}
	if _, err := g.WriteTo(w); err != nil {
		return fmt.Errorf("resnet50: write %s model: %w", size, err)
	}
	return nil
}

// buildFile writes the model to path (atomically: a failed write leaves no
// file).
func buildFile(path, size string, seed uint64) error {
	g, err := arch(size, seed)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("resnet50: %w", err)
	}
	return nil
}
