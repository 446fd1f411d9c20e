package retinanet

import (
	"fmt"
	"math"

	"github.com/mlperf-go/inference/onnx"
)

// The synthetic-weights model: RetinaNet with a ResNeXt50-32x4d FPN
// backbone as in the MLPerf training reference
// (mlcommons/training retired_benchmarks/retinanet/ssd/model: retinanet.py,
// backbone_utils.py, feature_pyramid_network.py, anchor_utils.py,
// utils.py, boxes.py), written with the onnx package under the official
// ONNX file's contract (tools/retinanet_pytorch_to_onnx.py of
// mlcommons/inference exports it with all post-processing in the graph):
//
//	input  "images" float32 [1, 3, 800, 800]  RGB in [0, 1]
//	output "boxes"  float32 [K, 4]  x1, y1, x2, y2 in input pixels
//	output "scores" float32 [K]     decreasing (NMS keep order)
//	output "labels" int64   [K]     0..263
//
// with K ≤ 300. Layers: normalisation by the ImageNet mean and standard
// deviation → ResNeXt50-32x4d (7×7/2 stem, 3×3/2 max-pool, bottleneck
// stages of [3, 4, 6, 3] blocks whose 3×3 convolution has 32 groups and
// carries the stride, frozen batch normalisation) → FPN over C3–C5 (1×1
// laterals, nearest ×2 top-down, 3×3 outputs, 256 channels) with P6 a
// 3×3/2 convolution of P5 and P7 one of ReLU(P6) → shared heads on every
// level (4 × [3×3 conv + ReLU], then 3×3 conv to A·264 logits or A·4
// box deltas, A = 9) → per level sigmoid, score > 0.05, top 1000, box
// decoding against the anchors, clipping to the image → class-wise NMS at
// IoU 0.5 (torchvision's coordinate-offset trick) → the first 300.

// Synthetic model sizes.
const (
	// sizeFull is the real architecture (37.2 M weights).
	sizeFull = "full"
	// sizeTiny is the same graph with every width divided by 16 (and 2
	// groups instead of 32), for tests. Input, classes, anchors and
	// post-processing are those of the full model.
	sizeTiny = "tiny"
)

// archSeed is the default weight seed of the synthetic models.
const archSeed uint64 = 20220607

// Detection post-processing settings of the reference model (RetinaNet's
// defaults in retinanet.py).
const (
	// scoreThresh is the score a candidate must exceed.
	scoreThresh = 0.05
	// nmsThresh is the IoU above which NMS suppresses a box.
	nmsThresh = 0.5
	// topKCandidates is how many candidates each level keeps at most.
	topKCandidates = 1000
	// detectionsPerImage is the most detections the model returns.
	detectionsPerImage = 300
	// numAnchors is the anchors per feature-map location (3 sizes × 3
	// aspect ratios).
	numAnchors = 9
	// bboxClip bounds the exponent of the decoded widths and heights:
	// ln(1000/16).
	bboxClip = 4.135166556742356
)

// levels are the feature pyramid levels P3–P7: their side for an
// InputSize input and the base anchor size (P3 100×100 … P7 7×7).
var levels = []struct {
	Side, AnchorSize int
}{{100, 32}, {50, 64}, {25, 128}, {13, 256}, {7, 512}}

var (
	imageMean = []float32{0.485, 0.456, 0.406}
	imageStd  = []float32{0.229, 0.224, 0.225}
)

const bnEps = 1e-5

// anchors returns the anchors of pyramid level l (0 for P3) as [x1 y1 x2
// y2] rows in the heads' (y, x, anchor) order, as the reference's
// AnchorGenerator computes them in float32: sizes (s, int(s·2^⅓),
// int(s·2^⅔)), aspect ratios h/w ∈ (0.5, 1, 2) ratio-major, base boxes
// rounded half to even, shifted by the stride InputSize // side.
func anchors(l int) []float32 {
	side, s := levels[l].Side, levels[l].AnchorSize
	scales := []float32{float32(s), float32(int(float64(s) * math.Pow(2, 1.0/3))), float32(int(float64(s) * math.Pow(2, 2.0/3)))}
	var base [][4]float32
	for _, r := range []float32{0.5, 1, 2} {
		hr := float32(math.Sqrt(float64(r)))
		wr := 1 / hr
		for _, sc := range scales {
			ws, hs := wr*sc, hr*sc
			base = append(base, [4]float32{
				float32(math.RoundToEven(float64(-ws / 2))), float32(math.RoundToEven(float64(-hs / 2))),
				float32(math.RoundToEven(float64(ws / 2))), float32(math.RoundToEven(float64(hs / 2))),
			})
		}
	}
	stride := float32(inputSize / side)
	out := make([]float32, 0, side*side*len(base)*4)
	for y := range side {
		for x := range side {
			sx, sy := float32(x)*stride, float32(y)*stride
			for _, b := range base {
				out = append(out, sx+b[0], sy+b[1], sx+b[2], sy+b[3])
			}
		}
	}
	return out
}

type archBuilder struct {
	g      *onnx.Graph
	groups int64
}

// arch builds the RetinaNet graph of the given size with weights drawn
// from seed (see onnx.Init).
func arch(size string, seed uint64) (*onnx.Graph, error) {
	var div int64
	switch size {
	case sizeFull:
		div = 1
	case sizeTiny:
		div = 16
	default:
		return nil, fmt.Errorf("retinanet: unknown model size %q (want %s or %s)", size, sizeFull, sizeTiny)
	}
	g := onnx.NewGraph(onnx.Config{
		Name: "retinanet_resnext50_32x4d_fpn_" + size,
		Seed: seed,
		Doc:  fmt.Sprintf("RetinaNet ResNeXt50-32x4d FPN (%s), synthetic weights, seed %d: performance only, accuracy not meaningful", size, seed),
	})
	b := archBuilder{g: g, groups: 32 / div}
	x := g.Input(inputName, onnx.Float, onnx.Fix(1), onnx.Fix(3), onnx.Fix(inputSize), onnx.Fix(inputSize))
	x = g.Div(g.Sub(x, g.Const("image_mean", onnx.Float, []int64{1, 3, 1, 1}, imageMean)),
		g.Const("image_std", onnx.Float, []int64{1, 3, 1, 1}, imageStd))

	// Backbone.
	stem := 64 / div
	x = g.Relu(b.convBN("backbone.conv1", x, 3, stem, 7, 2, 1, onnx.Uniform(0.9, 1.1)))
	x = g.MaxPool(x, []int64{3, 3}, onnx.ConvOpts{Strides: []int64{2, 2}, Pads: []int64{1, 1, 1, 1}})
	in := stem
	var feats []string // C3, C4, C5
	var featC []int64
	for s, n := range []int{3, 4, 6, 3} {
		planes := (int64(64) << s) / div
		for i := range n {
			stride := int64(1)
			if i == 0 && s > 0 {
				stride = 2
			}
			x = b.bottleneck(fmt.Sprintf("backbone.layer%d.%d", s+1, i), x, in, planes, stride, i == 0)
			in = 4 * planes
		}
		if s > 0 {
			feats, featC = append(feats, x), append(featC, in)
		}
	}

	// FPN.
	fc := 256 / div
	inner := make([]string, 3)
	for i := range 3 {
		inner[i] = b.conv(fmt.Sprintf("fpn.inner_blocks.%d", i), feats[i], featC[i], fc, 1, 1, 0, 1, onnx.He(featC[i]), 0)
	}
	pyramid := make([]string, 5)
	last := inner[2]
	pyramid[2] = b.conv("fpn.layer_blocks.2", last, fc, fc, 3, 1, 1, 1, onnx.He(9*fc), 0)
	for i := 1; i >= 0; i-- {
		last = g.Add(inner[i], g.ResizeNearest(last, 1, 1, 2, 2))
		pyramid[i] = b.conv(fmt.Sprintf("fpn.layer_blocks.%d", i), last, fc, fc, 3, 1, 1, 1, onnx.He(9*fc), 0)
	}
	pyramid[3] = b.conv("fpn.extra_blocks.p6", pyramid[2], fc, fc, 3, 2, 1, 1, onnx.He(9*fc), 0)
	pyramid[4] = b.conv("fpn.extra_blocks.p7", g.Relu(pyramid[3]), fc, fc, 3, 2, 1, 1, onnx.He(9*fc), 0)

	// Heads, shared over the levels.
	cls := make([]string, 5)
	reg := make([]string, 5)
	for l, p := range pyramid {
		cls[l] = b.head("head.classification_head", p, fc, numAnchors*numClasses, clsBias, 1.0/40)
		reg[l] = b.head("head.regression_head", p, fc, numAnchors*4, 0, 1.0/30)
	}
	postprocess(g, cls, reg)
	if err := g.Err(); err != nil {
		return nil, fmt.Errorf("retinanet: build %s model: %w", size, err)
	}
	return g, nil
}

// clsBias is the classification bias of the synthetic model. The
// reference initialises it to −ln(99) (prior 0.01); here it is a little
// higher so that seeded weights give a realistic number of candidates
// above ScoreThresh for the post-processing to work on.
const clsBias = -4.0

// conv appends a k×k convolution with bias (bias drawn around biasMid).
func (b archBuilder) conv(name, x string, cin, cout, k, stride, pad, groups int64, w onnx.Init, biasMid float64) string {
	g := b.g
	wt := g.Param(name+".weight", onnx.Float, []int64{cout, cin / groups, k, k}, w)
	bias := g.Param(name+".bias", onnx.Float, []int64{cout}, onnx.Uniform(biasMid-0.05, biasMid+0.05))
	return g.Conv(x, wt, bias, onnx.ConvOpts{Strides: []int64{stride, stride}, Pads: []int64{pad, pad, pad, pad}, Group: groups})
}

// convBN appends a bias-free convolution and its frozen batch norm.
func (b archBuilder) convBN(name, x string, cin, cout, k, stride, groups int64, gamma onnx.Init) string {
	g := b.g
	pad := (k - 1) / 2
	w := g.Param(name+".weight", onnx.Float, []int64{cout, cin / groups, k, k}, onnx.He(cin/groups*k*k))
	y := g.Conv(x, w, "", onnx.ConvOpts{Strides: []int64{stride, stride}, Pads: []int64{pad, pad, pad, pad}, Group: groups})
	return g.BatchNorm(y,
		g.Param(name+".bn.weight", onnx.Float, []int64{cout}, gamma),
		g.Param(name+".bn.bias", onnx.Float, []int64{cout}, onnx.Uniform(-0.05, 0.05)),
		g.Param(name+".bn.running_mean", onnx.Float, []int64{cout}, onnx.Uniform(-0.05, 0.05)),
		g.Param(name+".bn.running_var", onnx.Float, []int64{cout}, onnx.Uniform(0.8, 1.2)),
		bnEps)
}

// bottleneck appends one ResNeXt bottleneck: 1×1 (w) → 3×3/stride grouped
// (w) → 1×1 (4·planes), w = 2·planes (32 groups of 4 per 64 planes), plus
// the shortcut (a 1×1/stride projection when project).
func (b archBuilder) bottleneck(name, x string, cin, planes, stride int64, project bool) string {
	g := b.g
	width := 2 * planes
	near, small := onnx.Uniform(0.9, 1.1), onnx.Uniform(0.5, 0.7)
	shortcut := x
	if project {
		shortcut = b.convBN(name+".downsample", x, cin, 4*planes, 1, stride, 1, small)
	}
	y := g.Relu(b.convBN(name+".conv1", x, cin, width, 1, 1, 1, near))
	y = g.Relu(b.convBN(name+".conv2", y, width, width, 3, stride, b.groups, near))
	y = b.convBN(name+".conv3", y, width, 4*planes, 1, 1, 1, small)
	return g.Relu(g.Add(y, shortcut))
}

// head appends one RetinaNet head on a pyramid level: four 3×3 conv +
// ReLU of c channels and a 3×3 conv to out channels, whose weights are
// scaled down by lastScale to keep the synthetic outputs in a realistic
// range (logits of a few units, box deltas of a few tenths). The weights are
// shared over levels (same names).
func (b archBuilder) head(name, x string, c, out int64, lastBias, lastScale float64) string {
	for i := range 4 {
		p := fmt.Sprintf("%s.conv.%d", name, i)
		if !b.g.Defined(p + ".weight") {
			b.g.Param(p+".weight", onnx.Float, []int64{c, c, 3, 3}, onnx.He(9*c))
			b.g.Param(p+".bias", onnx.Float, []int64{c}, onnx.Uniform(-0.05, 0.05))
		}
		x = b.g.Relu(b.g.Conv(x, p+".weight", p+".bias", onnx.ConvOpts{Pads: []int64{1, 1, 1, 1}}))
	}
	p := name + ".out"
	if !b.g.Defined(p + ".weight") {
		he := onnx.He(9 * c)
		b.g.Param(p+".weight", onnx.Float, []int64{out, c, 3, 3}, onnx.Uniform(he.Low*lastScale, he.High*lastScale))
		b.g.Param(p+".bias", onnx.Float, []int64{out}, onnx.Uniform(lastBias-0.05, lastBias+0.05))
	}
	return b.g.Conv(x, p+".weight", p+".bias", onnx.ConvOpts{Pads: []int64{1, 1, 1, 1}})
}

// postprocess appends the reference's detection post-processing to g:
// cls[l] are the classification logits [1, A·264, H, W] and reg[l] the
// box deltas [1, A·4, H, W] of pyramid level l (sides as in Levels). It
// defines the outputs BoxesName, ScoresName and LabelsName:
//
//   - per level: logits to (H, W, A, class) order, the top min(1000, n)
//     by score (sigmoid of the logit), of which those > ScoreThresh (the
//     same set and order as the reference's threshold-then-topk); anchor = index //
//     264, label = index mod 264; decode (weights 1, exponent clipped at
//     BBoxClip); clip to [0, InputSize];
//   - concatenate the levels; class-wise NMS at NMSThresh by offsetting
//     each box by label · (max coordinate + 1) (torchvision's
//     batched_nms as traced); keep the first DetectionsPerImage.
func postprocess(g *onnx.Graph, cls, reg []string) {
	k := int64(numClasses)
	var boxes, scores, labels []string
	half := g.Scalar(onnx.Float, 0.5)
	for l := range cls {
		side := int64(levels[l].Side)
		n := side * side * numAnchors * k
		logits := g.ReshapeTo(g.Transpose(g.ReshapeTo(cls[l], 1, numAnchors, k, side, side), 0, 3, 4, 1, 2), -1)
		// Sigmoid is increasing, so the top scores are the sigmoid of the
		// top logits: only the candidates go through it.
		top, idx := g.TopK(logits, g.Int64s(min(topKCandidates, n)), 0, true)
		sc := g.Sigmoid(top)
		keep := g.Greater(sc, g.Scalar(onnx.Float, scoreThresh))
		sc = g.Op("Compress", []string{sc, keep}, onnx.IntAttr("axis", 0))
		idx = g.Op("Compress", []string{idx, keep}, onnx.IntAttr("axis", 0))
		anchor := g.Div(idx, g.Scalar(onnx.Int64, float64(k)))
		label := g.Sub(idx, g.Mul(anchor, g.Scalar(onnx.Int64, float64(k))))

		deltas := g.ReshapeTo(g.Transpose(g.ReshapeTo(reg[l], 1, numAnchors, 4, side, side), 0, 3, 4, 1, 2), -1, 4)
		d := g.Gather(deltas, anchor, 0)
		an := anchors(l)
		a := g.Gather(g.Const(fmt.Sprintf("anchors.p%d", l+3), onnx.Float, []int64{int64(len(an) / 4), 4}, an), anchor, 0)
		lo := g.SliceConst(a, []int64{0}, []int64{2}, []int64{1})
		wh := g.Sub(g.SliceConst(a, []int64{2}, []int64{4}, []int64{1}), lo)
		ctr := g.Add(lo, g.Mul(half, wh))
		dxy := g.SliceConst(d, []int64{0}, []int64{2}, []int64{1})
		dwh := g.Min(g.SliceConst(d, []int64{2}, []int64{4}, []int64{1}), g.Scalar(onnx.Float, bboxClip))
		pctr := g.Add(g.Mul(dxy, wh), ctr)
		pwh := g.Mul(g.Exp(dwh), wh)
		c2c := g.Mul(half, pwh)
		box := g.Concat(1, g.Sub(pctr, c2c), g.Add(pctr, c2c))
		box = g.Clip(box, g.Scalar(onnx.Float, 0), g.Scalar(onnx.Float, inputSize))
		boxes, scores, labels = append(boxes, box), append(scores, sc), append(labels, label)
	}
	allBoxes := g.Concat(0, boxes...)
	allScores := g.Concat(0, scores...)
	allLabels := g.Concat(0, labels...)
	// The maximum over the boxes and a 0 (so that no candidate at all
	// still reduces over something); boxes are clipped to ≥ 0.
	maxCoord := g.ReduceMax(g.Concat(0, g.ReshapeTo(allBoxes, -1), g.Const("", onnx.Float, []int64{1}, []float32{0})), []int64{0}, false)
	offset := g.Mul(g.Cast(allLabels, onnx.Float), g.Add(maxCoord, g.Scalar(onnx.Float, 1)))
	nmsBoxes := g.Add(allBoxes, g.Unsqueeze(offset, 1))
	sel := g.NonMaxSuppression(g.Unsqueeze(nmsBoxes, 0), g.Unsqueeze(allScores, 0, 1), onnx.NMSOpts{IoUThreshold: nmsThresh})
	keep := g.ReshapeTo(g.SliceConst(sel, []int64{0, 2}, []int64{detectionsPerImage, 3}, []int64{0, 1}), -1)
	g.Node("Gather", []string{allBoxes, keep}, []string{boxesName}, onnx.IntAttr("axis", 0))
	g.Node("Gather", []string{allScores, keep}, []string{scoresName}, onnx.IntAttr("axis", 0))
	g.Node("Gather", []string{allLabels, keep}, []string{labelsName}, onnx.IntAttr("axis", 0))
	g.Output(boxesName, onnx.Float, onnx.Sym("K"), onnx.Fix(4))
	g.Output(scoresName, onnx.Float, onnx.Sym("K"))
	g.Output(labelsName, onnx.Int64, onnx.Sym("K"))
}

// build writes the model of the given size and seed to path atomically.
// The same arguments always write the same bytes.
func build(path, size string, seed uint64) error {
	g, err := arch(size, seed)
	if err != nil {
		return err
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		return fmt.Errorf("retinanet: %w", err)
	}
	return nil
}
