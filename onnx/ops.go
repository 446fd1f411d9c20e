package onnx

// Layer helpers: each appends one operator (or a short standard pattern)
// with a fresh output name and returns that name. They follow the operator
// definitions of the graph's opset (e.g. ReduceMean takes axes as an
// attribute before opset 18 and as an input from 18 on).

// Unary operators.

// Relu appends Relu(x).
func (g *Graph) Relu(x string) string { return g.Op("Relu", []string{x}) }

// Sigmoid appends Sigmoid(x).
func (g *Graph) Sigmoid(x string) string { return g.Op("Sigmoid", []string{x}) }

// Tanh appends Tanh(x).
func (g *Graph) Tanh(x string) string { return g.Op("Tanh", []string{x}) }

// Erf appends Erf(x).
func (g *Graph) Erf(x string) string { return g.Op("Erf", []string{x}) }

// Sqrt appends Sqrt(x).
func (g *Graph) Sqrt(x string) string { return g.Op("Sqrt", []string{x}) }

// Exp appends Exp(x).
func (g *Graph) Exp(x string) string { return g.Op("Exp", []string{x}) }

// Neg appends Neg(x).
func (g *Graph) Neg(x string) string { return g.Op("Neg", []string{x}) }

// Reciprocal appends Reciprocal(x).
func (g *Graph) Reciprocal(x string) string { return g.Op("Reciprocal", []string{x}) }

// Identity appends Identity(x).
func (g *Graph) Identity(x string) string { return g.Op("Identity", []string{x}) }

// Not appends Not(x) on a bool tensor.
func (g *Graph) Not(x string) string { return g.Op("Not", []string{x}) }

// Binary operators (numpy broadcasting).

// Add appends a + b.
func (g *Graph) Add(a, b string) string { return g.Op("Add", []string{a, b}) }

// Sub appends a − b.
func (g *Graph) Sub(a, b string) string { return g.Op("Sub", []string{a, b}) }

// Mul appends a · b.
func (g *Graph) Mul(a, b string) string { return g.Op("Mul", []string{a, b}) }

// Div appends a / b.
func (g *Graph) Div(a, b string) string { return g.Op("Div", []string{a, b}) }

// Pow appends a ^ b.
func (g *Graph) Pow(a, b string) string { return g.Op("Pow", []string{a, b}) }

// Equal appends a == b (bool).
func (g *Graph) Equal(a, b string) string { return g.Op("Equal", []string{a, b}) }

// Less appends a < b (bool).
func (g *Graph) Less(a, b string) string { return g.Op("Less", []string{a, b}) }

// Greater appends a > b (bool).
func (g *Graph) Greater(a, b string) string { return g.Op("Greater", []string{a, b}) }

// MatMul appends the numpy-style matrix product a @ b.
func (g *Graph) MatMul(a, b string) string { return g.Op("MatMul", []string{a, b}) }

// Gemm appends alpha·A'·B' + beta·C with alpha = beta = 1, where A' and B'
// are A and B, transposed when transA/transB. c may be "" (no bias).
func (g *Graph) Gemm(a, b, c string, transA, transB bool) string {
	in := []string{a, b}
	if c != "" {
		in = append(in, c)
	}
	return g.Op("Gemm", in, IntAttr("transA", b2i(transA)), IntAttr("transB", b2i(transB)))
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Convolution and pooling.

// ConvOpts are the attributes of Conv and the pooling operators. Nil slices
// take the operator defaults (stride 1, no padding, dilation 1). Pads are
// [x1_begin, x2_begin, …, x1_end, x2_end].
type ConvOpts struct {
	Strides   []int64
	Pads      []int64
	Dilations []int64
	Group     int64
}

func (o ConvOpts) attrs() []Attr {
	var a []Attr
	if o.Strides != nil {
		a = append(a, IntsAttr("strides", o.Strides...))
	}
	if o.Pads != nil {
		a = append(a, IntsAttr("pads", o.Pads...))
	}
	if o.Dilations != nil {
		a = append(a, IntsAttr("dilations", o.Dilations...))
	}
	if o.Group > 1 {
		a = append(a, IntAttr("group", o.Group))
	}
	return a
}

// Conv appends Conv(x, w, b); b may be "" for no bias. The kernel shape is
// taken from w.
func (g *Graph) Conv(x, w, b string, o ConvOpts) string {
	in := []string{x, w}
	if b != "" {
		in = append(in, b)
	}
	return g.Op("Conv", in, o.attrs()...)
}

// MaxPool appends MaxPool with the given kernel.
func (g *Graph) MaxPool(x string, kernel []int64, o ConvOpts) string {
	return g.Op("MaxPool", []string{x}, append([]Attr{IntsAttr("kernel_shape", kernel...)}, o.attrs()...)...)
}

// AveragePool appends AveragePool with the given kernel (padding excluded
// from the average, the operator default).
func (g *Graph) AveragePool(x string, kernel []int64, o ConvOpts) string {
	return g.Op("AveragePool", []string{x}, append([]Attr{IntsAttr("kernel_shape", kernel...)}, o.attrs()...)...)
}

// GlobalAveragePool appends GlobalAveragePool(x): [N,C,H,W] → [N,C,1,1].
func (g *Graph) GlobalAveragePool(x string) string { return g.Op("GlobalAveragePool", []string{x}) }

// BatchNorm appends inference-mode BatchNormalization.
func (g *Graph) BatchNorm(x, scale, bias, mean, variance string, eps float32) string {
	return g.Op("BatchNormalization", []string{x, scale, bias, mean, variance}, FloatAttr("epsilon", eps))
}

// Normalisation and activations.

// Softmax appends Softmax over axis.
func (g *Graph) Softmax(x string, axis int64) string {
	return g.Op("Softmax", []string{x}, IntAttr("axis", axis))
}

// LogSoftmax appends LogSoftmax over axis.
func (g *Graph) LogSoftmax(x string, axis int64) string {
	return g.Op("LogSoftmax", []string{x}, IntAttr("axis", axis))
}

// LayerNorm appends LayerNormalization (opset ≥ 17) normalising the
// dimensions from axis on; bias may be "".
func (g *Graph) LayerNorm(x, scale, bias string, axis int64, eps float32) string {
	if g.cfg.Opset < 17 {
		g.fail("LayerNormalization needs opset 17, graph has %d", g.cfg.Opset)
	}
	in := []string{x, scale}
	if bias != "" {
		in = append(in, bias)
	}
	return g.Op("LayerNormalization", in, IntAttr("axis", axis), FloatAttr("epsilon", eps))
}

// Gelu appends the exact GELU x·½·(1+erf(x/√2)) of a float32 value (see
// GeluOf).
func (g *Graph) Gelu(x string) string { return g.GeluOf(x, Float) }

// GeluOf appends the exact GELU of x, whose element type is dt: the Gelu
// operator from opset 20, else the Erf pattern that ONNX Runtime fuses into
// one kernel.
func (g *Graph) GeluOf(x string, dt DType) string {
	if g.cfg.Opset >= 20 {
		return g.Op("Gelu", []string{x})
	}
	e := g.Erf(g.Div(x, g.Scalar(dt, 1.4142135623730951)))
	return g.Mul(g.Mul(x, g.Scalar(dt, 0.5)), g.Add(e, g.Scalar(dt, 1)))
}

// Reductions.

// ReduceMean appends ReduceMean over axes.
func (g *Graph) ReduceMean(x string, axes []int64, keepDims bool) string {
	return g.reduce("ReduceMean", x, axes, keepDims)
}

// ReduceSum appends ReduceSum over axes (axes always an input, opset ≥ 13).
func (g *Graph) ReduceSum(x string, axes []int64, keepDims bool) string {
	return g.Op("ReduceSum", []string{x, g.Int64s(axes...)}, IntAttr("keepdims", b2i(keepDims)))
}

// ReduceMax appends ReduceMax over axes.
func (g *Graph) ReduceMax(x string, axes []int64, keepDims bool) string {
	return g.reduce("ReduceMax", x, axes, keepDims)
}

func (g *Graph) reduce(op, x string, axes []int64, keepDims bool) string {
	if g.cfg.Opset >= 18 {
		return g.Op(op, []string{x, g.Int64s(axes...)}, IntAttr("keepdims", b2i(keepDims)))
	}
	return g.Op(op, []string{x}, IntsAttr("axes", axes...), IntAttr("keepdims", b2i(keepDims)))
}

// ArgMax appends ArgMax over axis (int64 indices; the first maximum wins).
func (g *Graph) ArgMax(x string, axis int64, keepDims bool) string {
	return g.Op("ArgMax", []string{x}, IntAttr("axis", axis), IntAttr("keepdims", b2i(keepDims)))
}

// Shape manipulation.

// Flatten appends Flatten at axis: [d0…dk…] → [d0·…·d(axis−1), rest].
func (g *Graph) Flatten(x string, axis int64) string {
	return g.Op("Flatten", []string{x}, IntAttr("axis", axis))
}

// Reshape appends Reshape(x, shape) with shape a 1-D int64 value.
func (g *Graph) Reshape(x, shape string) string { return g.Op("Reshape", []string{x, shape}) }

// ReshapeTo appends Reshape to constant dims (0 copies, −1 infers).
func (g *Graph) ReshapeTo(x string, dims ...int64) string { return g.Reshape(x, g.Int64s(dims...)) }

// Transpose appends Transpose with the permutation perm.
func (g *Graph) Transpose(x string, perm ...int64) string {
	return g.Op("Transpose", []string{x}, IntsAttr("perm", perm...))
}

// Concat appends Concat of xs along axis.
func (g *Graph) Concat(axis int64, xs ...string) string {
	return g.Op("Concat", xs, IntAttr("axis", axis))
}

// Unsqueeze appends Unsqueeze inserting axes (axes an input from opset 13).
func (g *Graph) Unsqueeze(x string, axes ...int64) string {
	return g.Op("Unsqueeze", []string{x, g.Int64s(axes...)})
}

// Squeeze appends Squeeze removing axes (all size-1 axes when none given).
func (g *Graph) Squeeze(x string, axes ...int64) string {
	in := []string{x}
	if len(axes) > 0 {
		in = append(in, g.Int64s(axes...))
	}
	return g.Op("Squeeze", in)
}

// Slice appends Slice(x, starts, ends, axes, steps); axes and steps may be "".
func (g *Graph) Slice(x, starts, ends, axes, steps string) string {
	in := []string{x, starts, ends, axes, steps}
	for len(in) > 3 && in[len(in)-1] == "" {
		in = in[:len(in)-1]
	}
	return g.Op("Slice", in)
}

// SliceConst appends Slice with constant starts, ends and axes (steps 1).
func (g *Graph) SliceConst(x string, starts, ends, axes []int64) string {
	return g.Slice(x, g.Int64s(starts...), g.Int64s(ends...), g.Int64s(axes...), "")
}

// Gather appends Gather(data, indices) along axis.
func (g *Graph) Gather(data, indices string, axis int64) string {
	return g.Op("Gather", []string{data, indices}, IntAttr("axis", axis))
}

// Split appends Split of x along axis into parts of the given sizes.
func (g *Graph) Split(x string, axis int64, sizes ...int64) []string {
	return g.OpN("Split", len(sizes), []string{x, g.Int64s(sizes...)}, IntAttr("axis", axis))
}

// Cast appends Cast to the element type to.
func (g *Graph) Cast(x string, to DType) string {
	return g.Op("Cast", []string{x}, IntAttr("to", int64(to)))
}

// Where appends Where(cond, x, y).
func (g *Graph) Where(cond, x, y string) string { return g.Op("Where", []string{cond, x, y}) }

// Shape appends Shape(x) (1-D int64).
func (g *Graph) Shape(x string) string { return g.Op("Shape", []string{x}) }

// Range appends Range(start, limit, delta) over 0-D values.
func (g *Graph) Range(start, limit, delta string) string {
	return g.Op("Range", []string{start, limit, delta})
}

// Expand appends Expand(x, shape) (numpy broadcast to shape).
func (g *Graph) Expand(x, shape string) string { return g.Op("Expand", []string{x, shape}) }

// Trilu appends Trilu(x) keeping the upper (upper=true) or lower triangle.
func (g *Graph) Trilu(x string, upper bool) string {
	return g.Op("Trilu", []string{x}, IntAttr("upper", b2i(upper)))
}

// ConstantOfShape appends ConstantOfShape(shape) filled with v of type dt.
func (g *Graph) ConstantOfShape(shape string, dt DType, v float64) string {
	return g.Op("ConstantOfShape", []string{shape}, TensorAttr("value", NewFilled("value", dt, []int64{1}, v)))
}

// Linear appends x·W + b for x [..., in], with seeded W [in, out] (Xavier)
// and b [out] (zeros) named prefix+".weight" and prefix+".bias"; bias is
// omitted when withBias is false.
func (g *Graph) Linear(prefix, x string, in, out int64, withBias bool) string {
	w := g.Param(prefix+".weight", Float, []int64{in, out}, Xavier(in, out))
	y := g.MatMul(x, w)
	if withBias {
		y = g.Add(y, g.Param(prefix+".bias", Float, []int64{out}, Constant(0)))
	}
	return y
}
