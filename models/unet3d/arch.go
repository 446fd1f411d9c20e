package unet3d

import (
	"fmt"

	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model: the reference's 3D-UNet for KiTS19
// (mlcommons/inference vision/medical_imaging/3d-unet-kits19
// pytorch_checkpoint_SUT.py) written with the onnx package under the
// official ONNX file's contract:
//
//	input  "input"  float32 [N, 1, 128, 128, 128] (N, C, D, H, W)
//	output "output" float32 [N, 3, 128, 128, 128] per-class logits
//
// Every conv block is a 3×3×3 convolution without bias (padding 1) →
// InstanceNorm3d (affine, ε = 1e-5) → ReLU. The input block is two blocks
// 1→c0, c0→c0; four down blocks ci−1→ci (the first convolution with
// stride 2); a bottleneck c4→c5 (stride 2); five up blocks, each a
// ConvTranspose3d (kernel 2, stride 2, with bias), concatenation with the
// skip of the same resolution (upsampled first) and two conv blocks
// 2·out→out, out→out; then a 1×1×1 convolution c0→3 with bias. Spatial
// sizes on a 128³ window: 128, 64, 32, 16, 8, 4 at the bottleneck.

// Synthetic model sizes.
const (
	// sizeFull is the real architecture, channels 32-64-128-256-320-320
	// (31.2 M parameters).
	sizeFull = "full"
	// sizeTiny is the same graph with channels 2-4-8-8-8-8, for tests.
	sizeTiny = "tiny"
)

// archSeed is the default weight seed: the same size and seed always give
// the same file.
const archSeed uint64 = 20211026

// The contract's names and sizes.
const (
	inputName  = "input"
	outputName = "output"
	classes    = 3
	window     = 128
	instEps    = 1e-5
)

// channels are the widths of the six resolution levels of a size.
func channels(size string) ([6]int64, error) {
	switch size {
	case sizeFull:
		return [6]int64{32, 64, 128, 256, 320, 320}, nil
	case sizeTiny:
		return [6]int64{2, 4, 8, 8, 8, 8}, nil
	}
	return [6]int64{}, fmt.Errorf("unet3d: unknown model size %q (want %s or %s)", size, sizeFull, sizeTiny)
}

// arch builds the 3D-UNet graph of the given size with weights drawn from
// seed: He-initialised convolutions, instance-norm scales near 1 and
// shifts near 0, and a head whose logits stay O(1). Opset 12, as the
// official export.
func arch(size string, seed uint64) (*onnx.Graph, error) {
	ch, err := channels(size)
	if err != nil {
		return nil, err
	}
	g := onnx.NewGraph(onnx.Config{
		Name:  "3dunet_kits19_" + size,
		Opset: 12,
		Seed:  seed,
		Doc:   fmt.Sprintf("3D-UNet KiTS19 (%s), synthetic weights, seed %d: performance only, accuracy not meaningful", size, seed),
	})
	x := g.Input(inputName, onnx.Float, onnx.Sym("batch_size"), onnx.Fix(1), onnx.Fix(window), onnx.Fix(window), onnx.Fix(window))
	block := func(name, x string, in, out int64, stride int64) string {
		w := g.Param(name+".conv.weight", onnx.Float, []int64{out, in, 3, 3, 3}, onnx.He(in*27))
		y := g.Conv(x, w, "", onnx.ConvOpts{Strides: []int64{stride, stride, stride}, Pads: []int64{1, 1, 1, 1, 1, 1}})
		s := g.Param(name+".norm.weight", onnx.Float, []int64{out}, onnx.Uniform(0.9, 1.1))
		b := g.Param(name+".norm.bias", onnx.Float, []int64{out}, onnx.Uniform(-0.1, 0.1))
		return g.Relu(g.InstanceNorm(y, s, b, instEps))
	}
	x = block("input_block.conv1", x, 1, ch[0], 1)
	x = block("input_block.conv2", x, ch[0], ch[0], 1)
	skips := []string{x}
	for i := 1; i <= 4; i++ {
		p := fmt.Sprintf("downsample.%d", i-1)
		x = block(p+".conv1", x, ch[i-1], ch[i], 2)
		x = block(p+".conv2", x, ch[i], ch[i], 1)
		skips = append(skips, x)
	}
	x = block("bottleneck.conv1", x, ch[4], ch[5], 2)
	x = block("bottleneck.conv2", x, ch[5], ch[5], 1)
	for u := range 5 {
		in, out := ch[5-u], ch[4-u]
		p := fmt.Sprintf("upsample.%d", u)
		w := g.Param(p+".upsample_conv.weight", onnx.Float, []int64{in, out, 2, 2, 2}, onnx.He(in*8))
		b := g.Param(p+".upsample_conv.bias", onnx.Float, []int64{out}, onnx.Uniform(-0.05, 0.05))
		x = g.ConvTranspose(x, w, b, onnx.ConvTransposeOpts{Strides: []int64{2, 2, 2}})
		x = g.Concat(1, x, skips[4-u])
		x = block(p+".conv1", x, 2*out, out, 1)
		x = block(p+".conv2", x, out, out, 1)
	}
	w := g.Param("output.conv.weight", onnx.Float, []int64{classes, ch[0], 1, 1, 1}, onnx.Xavier(ch[0], classes))
	b := g.Param("output.conv.bias", onnx.Float, []int64{classes}, onnx.Uniform(-0.1, 0.1))
	y := g.Conv(x, w, b, onnx.ConvOpts{})
	g.Rename(y, outputName)
	g.Output(outputName, onnx.Float, onnx.Sym("batch_size"), onnx.Fix(classes), onnx.Fix(window), onnx.Fix(window), onnx.Fix(window))
	if err := g.Err(); err != nil {
		return nil, err
	}
	return g, nil
}

// buildModel writes the synthetic model of a size and seed to path (the
// full model's 125 MB of weights fit inside the .onnx file).
func buildModel(path, size string, seed uint64) error {
	g, err := arch(size, seed)
	if err != nil {
		return err
	}
	return g.WriteFile(path, onnx.FileOptions{})
}
