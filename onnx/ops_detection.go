package onnx

// Operator helpers that object detection graphs need (anchor decoding,
// score selection, non-maximum suppression, feature-pyramid upsampling).
// Like those of ops.go, each appends one operator with a fresh output name
// and returns that name, following the definitions of opset 13 and later.

// TopK appends TopK(x, k) along axis and returns its values and int64
// indices. largest picks the k largest (else the smallest); the results
// are sorted (descending for largest), ties keeping the lower index first
// as ONNX Runtime does. k is a 1-element int64 value (see Int64s).
func (g *Graph) TopK(x, k string, axis int64, largest bool) (values, indices string) {
	out := g.OpN("TopK", 2, []string{x, k}, IntAttr("axis", axis), IntAttr("largest", b2i(largest)), IntAttr("sorted", 1))
	return out[0], out[1]
}

// NMSOpts are the optional inputs and the box format of
// NonMaxSuppression.
type NMSOpts struct {
	// MaxPerClass is the most boxes kept per batch and class (0: all).
	MaxPerClass int64
	// IoUThreshold suppresses a box whose IoU with a kept one is greater.
	IoUThreshold float32
	// ScoreThreshold, when HasScoreThreshold, drops boxes whose score is
	// not greater than it before any suppression.
	ScoreThreshold    float32
	HasScoreThreshold bool
	// CenterBox selects [x_center, y_center, width, height] boxes instead
	// of corners [y1, x1, y2, x2] (either corner order works for IoU).
	CenterBox bool
}

// NonMaxSuppression appends NonMaxSuppression(boxes [B, N, 4], scores
// [B, C, N]) and returns selected_indices, int64 [S, 3] rows of (batch,
// class, box), each class's boxes in decreasing score order.
func (g *Graph) NonMaxSuppression(boxes, scores string, o NMSOpts) string {
	maxOut := o.MaxPerClass
	if maxOut <= 0 {
		maxOut = 1<<31 - 1 // ONNX Runtime reads the count as int64 but caps it there
	}
	in := []string{boxes, scores, g.Int64s(maxOut), g.Const(g.Unique("iou_threshold"), Float, []int64{1}, []float32{o.IoUThreshold})}
	if o.HasScoreThreshold {
		in = append(in, g.Const(g.Unique("score_threshold"), Float, []int64{1}, []float32{o.ScoreThreshold}))
	}
	return g.Op("NonMaxSuppression", in, IntAttr("center_point_box", b2i(o.CenterBox)))
}

// ResizeNearest appends Resize(x) by scales (one per dimension) in
// "nearest" mode with asymmetric coordinates and floor rounding, what
// PyTorch's F.interpolate(mode="nearest") exports to.
func (g *Graph) ResizeNearest(x string, scales ...float32) string {
	return g.Op("Resize", []string{x, "", g.Const(g.Unique("scales"), Float, []int64{int64(len(scales))}, scales)},
		StringAttr("mode", "nearest"),
		StringAttr("coordinate_transformation_mode", "asymmetric"),
		StringAttr("nearest_mode", "floor"))
}

// ResizeLinear appends Resize(x) to the given sizes (one per dimension)
// in "linear" mode with half-pixel coordinates (PyTorch's bilinear with
// align_corners=False).
func (g *Graph) ResizeLinear(x string, sizes ...int64) string {
	return g.Op("Resize", []string{x, "", "", g.Int64s(sizes...)},
		StringAttr("mode", "linear"),
		StringAttr("coordinate_transformation_mode", "half_pixel"))
}

// Min appends the element-wise minimum of xs (numpy broadcasting).
func (g *Graph) Min(xs ...string) string { return g.Op("Min", xs) }

// Max appends the element-wise maximum of xs (numpy broadcasting).
func (g *Graph) Max(xs ...string) string { return g.Op("Max", xs) }

// Clip appends Clip(x, lo, hi); lo or hi may be "" for no bound. The
// bounds are 0-D values of x's type (see Scalar).
func (g *Graph) Clip(x, lo, hi string) string {
	in := []string{x, lo, hi}
	for len(in) > 1 && in[len(in)-1] == "" {
		in = in[:len(in)-1]
	}
	return g.Op("Clip", in)
}

// GatherElements appends GatherElements(data, indices) along axis.
func (g *Graph) GatherElements(data, indices string, axis int64) string {
	return g.Op("GatherElements", []string{data, indices}, IntAttr("axis", axis))
}

// ReduceMin appends ReduceMin over axes.
func (g *Graph) ReduceMin(x string, axes []int64, keepDims bool) string {
	return g.reduce("ReduceMin", x, axes, keepDims)
}

// Floor appends Floor(x).
func (g *Graph) Floor(x string) string { return g.Op("Floor", []string{x}) }

// Ceil appends Ceil(x).
func (g *Graph) Ceil(x string) string { return g.Op("Ceil", []string{x}) }

// Round appends Round(x): halves to even, as torch.round.
func (g *Graph) Round(x string) string { return g.Op("Round", []string{x}) }

// Log appends the natural logarithm Log(x).
func (g *Graph) Log(x string) string { return g.Op("Log", []string{x}) }

// And appends the logical a ∧ b of bool tensors.
func (g *Graph) And(a, b string) string { return g.Op("And", []string{a, b}) }

// Or appends the logical a ∨ b of bool tensors.
func (g *Graph) Or(a, b string) string { return g.Op("Or", []string{a, b}) }

// NonZero appends NonZero(x): int64 [rank, count], the coordinates of the
// non-zero elements in row-major order.
func (g *Graph) NonZero(x string) string { return g.Op("NonZero", []string{x}) }

// Tile appends Tile(x, repeats) with constant repeats, one per dimension.
func (g *Graph) Tile(x string, repeats ...int64) string {
	return g.Op("Tile", []string{x, g.Int64s(repeats...)})
}
