package yolo

import (
	"fmt"
	"math"

	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model: YOLO11-L as Ultralytics builds it from
// ultralytics/cfg/models/11/yolo11.yaml at scale "l" (depth 1.0, width
// 1.0, at most 512 channels; every C3k2 with C3k blocks, as parse_model
// sets for the m, l and x scales) and exports it to ONNX with the
// batch-norms fused into the convolutions (ultralytics/nn/modules: conv.py,
// block.py, head.py), written with the onnx package:
//
//	input  "images"  float32 [1, 3, 640, 640]  RGB in [0, 1], letterboxed
//	output "output0" float32 [1, 84, 8400]     per anchor: box centre x, y,
//	                                            width, height (input pixels),
//	                                            80 class scores (sigmoid)
//
// Backbone: Conv 3×3/2 (64) → Conv 3×3/2 (128) → C3k2 (256, e 0.25) →
// Conv/2 (256) → C3k2 (512, e 0.25) [P3] → Conv/2 (512) → C3k2 (512) [P4]
// → Conv/2 (512) → C3k2 (512) → SPPF (k 5) → C2PSA (2 PSA blocks, 4 heads)
// [P5]. Neck: upsample ×2, concat P4, C3k2 (512); upsample, concat P3,
// C3k2 (256) [out 3]; Conv/2, concat, C3k2 (512) [out 4]; Conv/2, concat,
// C3k2 (512) [out 5]. Every C3k2 repeats twice. Detect on the three
// outputs: per level a box branch (two 3×3 Conv of 64, a 1×1 conv to 64 =
// 4 sides × 16 DFL bins) and a class branch (depthwise 3×3 + 1×1 Conv
// twice, 256 wide, a 1×1 conv to 80); DFL (softmax over the 16 bins, their
// expectation), distances to xywh around the anchor points (cell centres)
// times the stride, sigmoid class scores. Conv is convolution + SiLU (the
// fused batch norm becomes the convolution's bias).

// Synthetic model sizes.
const (
	// sizeFull is the real architecture: 25,372,160 parameters as
	// Ultralytics counts them (batch norms unfused).
	sizeFull = "full"
	// sizeTiny is the same graph with every width divided by 4 (C2PSA
	// keeps one attention head; the Detect branches are 64 and 80 wide),
	// for tests. Input, output, anchors and decoding are the full model's.
	sizeTiny = "tiny"
)

// archSeed is the default weight seed of the synthetic models.
const archSeed uint64 = 20241030

// fullParams is YOLO11-L's parameter count as Ultralytics' model.info()
// reports it (yolo11.yaml, scale l): convolution weights, batch-norm
// weights and biases, the Detect heads' last biases and the 16 DFL
// weights.
const fullParams = 25372160

// regMax is the number of DFL bins per box side.
const regMax = 16

// strides are the Detect levels' strides (P3, P4, P5).
var strides = [3]int{8, 16, 32}

// clsBias is the synthetic class logits' bias (sigmoid(−7.5) ≈ 0.00055,
// with logits spread by the random weights), chosen so that a random image
// leaves about a third of the anchors above the reference's 0.001
// threshold and NMS its full 300 detections, as the real model does at
// that threshold. (Ultralytics initialises it to log(5/80/(640/s)²), about
// −9.5 to −12, for training.)
const clsBias = -7.5

type archBuilder struct {
	g *onnx.Graph
	// torchParams counts parameters as PyTorch does before fusion (two
	// per batch-norm channel).
	torchParams int64
}

// arch builds the YOLO11-L graph of the given size with weights drawn
// from seed (see onnx.Init). It also returns the parameter count as
// Ultralytics reports it for the unfused model.
func arch(size string, seed uint64) (*onnx.Graph, int64, error) {
	var div int64
	switch size {
	case sizeFull:
		div = 1
	case sizeTiny:
		div = 4
	default:
		return nil, 0, fmt.Errorf("yolo: unknown model size %q (want %s or %s)", size, sizeFull, sizeTiny)
	}
	g := onnx.NewGraph(onnx.Config{
		Name: "yolo11l_" + size,
		Seed: seed,
		Doc:  fmt.Sprintf("YOLO11-L (%s), synthetic weights, seed %d: performance only, accuracy not meaningful", size, seed),
	})
	b := &archBuilder{g: g}
	w := func(c int64) int64 { return c / div }
	x := g.Input(inputName, onnx.Float, onnx.Fix(1), onnx.Fix(3), onnx.Fix(inputSize), onnx.Fix(inputSize))

	x = b.conv("model.0", x, 3, w(64), 3, 2, 1, true)
	x = b.conv("model.1", x, w(64), w(128), 3, 2, 1, true)
	x = b.c3k2("model.2", x, w(128), w(256), 0.25)
	x = b.conv("model.3", x, w(256), w(256), 3, 2, 1, true)
	p3 := b.c3k2("model.4", x, w(256), w(512), 0.25)
	x = b.conv("model.5", p3, w(512), w(512), 3, 2, 1, true)
	p4 := b.c3k2("model.6", x, w(512), w(512), 0.5)
	x = b.conv("model.7", p4, w(512), w(512), 3, 2, 1, true)
	x = b.c3k2("model.8", x, w(512), w(512), 0.5)
	x = b.sppf("model.9", x, w(512), w(512))
	p5 := b.c2psa("model.10", x, w(512))

	x = g.Concat(1, g.ResizeNearest(p5, 1, 1, 2, 2), p4)
	h13 := b.c3k2("model.13", x, w(1024), w(512), 0.5)
	x = g.Concat(1, g.ResizeNearest(h13, 1, 1, 2, 2), p3)
	out3 := b.c3k2("model.16", x, w(1024), w(256), 0.5)
	x = g.Concat(1, b.conv("model.17", out3, w(256), w(256), 3, 2, 1, true), h13)
	out4 := b.c3k2("model.19", x, w(768), w(512), 0.5)
	x = g.Concat(1, b.conv("model.20", out4, w(512), w(512), 3, 2, 1, true), p5)
	out5 := b.c3k2("model.22", x, w(1024), w(512), 0.5)

	b.detect("model.23", []string{out3, out4, out5}, []int64{w(256), w(512), w(512)})
	if err := g.Err(); err != nil {
		return nil, 0, fmt.Errorf("yolo: build %s model: %w", size, err)
	}
	return g, b.torchParams, nil
}

// conv appends Ultralytics' Conv with its batch norm fused: a k×k
// convolution (padding k/2, groups) with bias, then SiLU when act.
func (b *archBuilder) conv(name, x string, c1, c2, k, s, groups int64, act bool) string {
	g := b.g
	fan := c1 / groups * k * k
	wt := g.Param(name+".conv.weight", onnx.Float, []int64{c2, c1 / groups, k, k}, onnx.He(fan))
	bias := g.Param(name+".conv.bias", onnx.Float, []int64{c2}, onnx.Uniform(-0.1, 0.1))
	b.torchParams += c2*fan + 2*c2
	p := k / 2
	y := g.Conv(x, wt, bias, onnx.ConvOpts{Strides: []int64{s, s}, Pads: []int64{p, p, p, p}, Group: groups})
	if act {
		y = g.SiLU(y)
	}
	return y
}

// conv2d appends a plain 1×1 nn.Conv2d with bias (the Detect branches'
// last layers), its weights scaled down by scale and its bias drawn
// around biasMid.
func (b *archBuilder) conv2d(name, x string, c1, c2 int64, scale, biasMid float64) string {
	g := b.g
	he := onnx.He(c1)
	wt := g.Param(name+".weight", onnx.Float, []int64{c2, c1, 1, 1}, onnx.Uniform(he.Low*scale, he.High*scale))
	bias := g.Param(name+".bias", onnx.Float, []int64{c2}, onnx.Uniform(biasMid-0.05, biasMid+0.05))
	b.torchParams += c2*c1 + c2
	return g.Conv(x, wt, bias, onnx.ConvOpts{})
}

// bottleneck appends Bottleneck(c1, c2, shortcut, k=(k1, k2), e).
func (b *archBuilder) bottleneck(name, x string, c1, c2 int64, k1, k2 int64, e float64) string {
	c := int64(float64(c2) * e)
	y := b.conv(name+".cv1", x, c1, c, k1, 1, 1, true)
	y = b.conv(name+".cv2", y, c, c2, k2, 1, 1, true)
	if c1 == c2 {
		y = b.g.Add(x, y)
	}
	return y
}

// c3k appends C3k(c1, c2, n=2, shortcut, e=0.5, k=3): two branches of
// c2/2 channels, one through two 3×3 bottlenecks, concatenated and fused
// by a 1×1 Conv.
func (b *archBuilder) c3k(name, x string, c1, c2 int64) string {
	c := c2 / 2
	m := b.conv(name+".cv1", x, c1, c, 1, 1, 1, true)
	for i := range 2 {
		m = b.bottleneck(fmt.Sprintf("%s.m.%d", name, i), m, c, c, 3, 3, 1.0)
	}
	y2 := b.conv(name+".cv2", x, c1, c, 1, 1, 1, true)
	return b.conv(name+".cv3", b.g.Concat(1, m, y2), 2*c, c2, 1, 1, 1, true)
}

// c3k2 appends C3k2(c1, c2, n=2, c3k=True, e): a 1×1 Conv to 2c channels
// (c = c2·e) split in two halves, two C3k blocks chained on the second
// half, all four concatenated and fused by a 1×1 Conv.
func (b *archBuilder) c3k2(name, x string, c1, c2 int64, e float64) string {
	g := b.g
	c := int64(float64(c2) * e)
	y := g.Split(b.conv(name+".cv1", x, c1, 2*c, 1, 1, 1, true), 1, c, c)
	for i := range 2 {
		y = append(y, b.c3k(fmt.Sprintf("%s.m.%d", name, i), y[len(y)-1], c, c))
	}
	return b.conv(name+".cv2", g.Concat(1, y...), 4*c, c2, 1, 1, 1, true)
}

// sppf appends SPPF(c1, c2, k=5): a 1×1 Conv to c1/2, three chained 5×5
// stride-1 max-pools, the four concatenated and fused by a 1×1 Conv.
func (b *archBuilder) sppf(name, x string, c1, c2 int64) string {
	g := b.g
	c := c1 / 2
	y := []string{b.conv(name+".cv1", x, c1, c, 1, 1, 1, true)}
	for range 3 {
		y = append(y, g.MaxPool(y[len(y)-1], []int64{5, 5}, onnx.ConvOpts{Strides: []int64{1, 1}, Pads: []int64{2, 2, 2, 2}}))
	}
	return b.conv(name+".cv2", g.Concat(1, y...), 4*c, c2, 1, 1, 1, true)
}

// c2psa appends C2PSA(c1, c1, n=2, e=0.5): a 1×1 Conv split in halves,
// two PSA blocks on the second, the halves concatenated and fused.
func (b *archBuilder) c2psa(name, x string, c1 int64) string {
	g := b.g
	c := c1 / 2
	ab := g.Split(b.conv(name+".cv1", x, c1, 2*c, 1, 1, 1, true), 1, c, c)
	y := ab[1]
	for i := range 2 {
		p := fmt.Sprintf("%s.m.%d", name, i)
		y = g.Add(y, b.attention(p+".attn", y, c, max(c/64, 1)))
		f := b.conv(p+".ffn.0", y, c, 2*c, 1, 1, 1, true)
		y = g.Add(y, b.conv(p+".ffn.1", f, 2*c, c, 1, 1, 1, false))
	}
	return b.conv(name+".cv2", g.Concat(1, ab[0], y), 2*c, c1, 1, 1, 1, true)
}

// attention appends Attention(dim, heads, attn_ratio=0.5) on a [1, dim,
// H, W] map: a 1×1 Conv to per-head q, k (head_dim/2 each) and v
// (head_dim), softmax(qᵀk·scale) over the keys, v·attnᵀ, plus a depthwise
// 3×3 Conv of v (positional encoding), then a 1×1 Conv.
func (b *archBuilder) attention(name, x string, dim, heads int64) string {
	g := b.g
	side := int64(inputSize / strides[2])
	n := side * side
	headDim := dim / heads
	keyDim := headDim / 2
	qkv := b.conv(name+".qkv", x, dim, dim+2*keyDim*heads, 1, 1, 1, false)
	parts := g.Split(g.ReshapeTo(qkv, 1, heads, 2*keyDim+headDim, n), 2, keyDim, keyDim, headDim)
	q, k, v := parts[0], parts[1], parts[2]
	scale := g.Scalar(onnx.Float, float64(float32(math.Pow(float64(keyDim), -0.5))))
	attn := g.Softmax(g.Mul(g.MatMul(g.Transpose(q, 0, 1, 3, 2), k), scale), -1)
	y := g.ReshapeTo(g.MatMul(v, g.Transpose(attn, 0, 1, 3, 2)), 1, dim, side, side)
	pe := b.conv(name+".pe", g.ReshapeTo(v, 1, dim, side, side), dim, dim, 3, 1, dim, false)
	return b.conv(name+".proj", g.Add(y, pe), dim, dim, 1, 1, 1, false)
}

// detect appends Detect(nc=80) on the three levels and defines the
// output.
func (b *archBuilder) detect(name string, xs []string, ch []int64) {
	g := b.g
	c2 := max(16, ch[0]/4, 4*regMax)
	c3 := max(ch[0], min(numClasses, 100))
	var flat []string
	for i, x := range xs {
		bx := b.conv(fmt.Sprintf("%s.cv2.%d.0", name, i), x, ch[i], c2, 3, 1, 1, true)
		bx = b.conv(fmt.Sprintf("%s.cv2.%d.1", name, i), bx, c2, c2, 3, 1, 1, true)
		bx = b.conv2d(fmt.Sprintf("%s.cv2.%d.2", name, i), bx, c2, 4*regMax, 0.5, 1)
		cl := b.conv(fmt.Sprintf("%s.cv3.%d.0.0", name, i), x, ch[i], ch[i], 3, 1, ch[i], true)
		cl = b.conv(fmt.Sprintf("%s.cv3.%d.0.1", name, i), cl, ch[i], c3, 1, 1, 1, true)
		cl = b.conv(fmt.Sprintf("%s.cv3.%d.1.0", name, i), cl, c3, c3, 3, 1, c3, true)
		cl = b.conv(fmt.Sprintf("%s.cv3.%d.1.1", name, i), cl, c3, c3, 1, 1, 1, true)
		cl = b.conv2d(fmt.Sprintf("%s.cv3.%d.2", name, i), cl, c3, numClasses, 4, clsBias)
		flat = append(flat, g.ReshapeTo(g.Concat(1, bx, cl), 1, 4*regMax+numClasses, -1))
	}
	parts := g.Split(g.Concat(2, flat...), 1, 4*regMax, numClasses)
	// DFL: [1, 64, A] → [1, 4, 16, A] → bins first → softmax → expectation.
	bins := g.Softmax(g.Transpose(g.ReshapeTo(parts[0], 1, 4, regMax, numAnchors), 0, 2, 1, 3), 1)
	arange := make([]float32, regMax)
	for i := range arange {
		arange[i] = float32(i)
	}
	b.torchParams += regMax
	dfl := g.Conv(bins, g.Const(name+".dfl.conv.weight", onnx.Float, []int64{1, regMax, 1, 1}, arange), "", onnx.ConvOpts{})
	dist := g.Split(g.ReshapeTo(dfl, 1, 4, numAnchors), 1, 2, 2)
	anchors, stride := anchorPoints()
	ap := g.Const("anchor_points", onnx.Float, []int64{1, 2, numAnchors}, anchors)
	x1y1 := g.Sub(ap, dist[0])
	x2y2 := g.Add(ap, dist[1])
	cxy := g.Div(g.Add(x1y1, x2y2), g.Scalar(onnx.Float, 2))
	wh := g.Sub(x2y2, x1y1)
	box := g.Mul(g.Concat(1, cxy, wh), g.Const("anchor_strides", onnx.Float, []int64{1, numAnchors}, stride))
	g.Node("Concat", []string{box, g.Sigmoid(parts[1])}, []string{outputName}, onnx.IntAttr("axis", 1))
	g.Output(outputName, onnx.Float, onnx.Fix(1), onnx.Fix(4+numClasses), onnx.Fix(numAnchors))
}

// anchorPoints returns Ultralytics' make_anchors for the 640×640 input
// (grid offset 0.5), as the export bakes them in: the anchor points'
// x (first numAnchors values) and y (next numAnchors) in grid cells, and
// each anchor's stride; levels P3, P4, P5 in turn, each row-major.
func anchorPoints() (xy, stride []float32) {
	xy = make([]float32, 2*numAnchors)
	stride = make([]float32, 0, numAnchors)
	a := 0
	for _, s := range strides {
		side := inputSize / s
		for y := range side {
			for x := range side {
				xy[a], xy[numAnchors+a] = float32(x)+0.5, float32(y)+0.5
				stride = append(stride, float32(s))
				a++
			}
		}
	}
	return xy, stride
}

// build writes the model of the given size and seed to path atomically.
// The same arguments always write the same bytes.
func build(path, size string, seed uint64) error {
	g, _, err := arch(size, seed)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("yolo: %w", err)
	}
	return nil
}
