package onnx

// Operators of volumetric (3-D) networks such as the KiTS19 3D-UNet. Conv
// itself is rank-generic (the kernel rank follows the weight tensor), so a
// 3-D convolution is Conv with a [M, C/group, kD, kH, kW] weight and
// three-element ConvOpts.

// InstanceNorm appends InstanceNormalization(x, scale, bias): each (n, c)
// slice of x [N, C, ...] normalised over its spatial elements with its own
// mean and (biased) variance, then scaled and shifted by scale[c] and
// bias[c] ([C] each). eps is added to the variance (PyTorch's
// InstanceNorm3d default is 1e-5).
func (g *Graph) InstanceNorm(x, scale, bias string, eps float32) string {
	return g.Op("InstanceNormalization", []string{x, scale, bias}, FloatAttr("epsilon", eps))
}

// ConvTransposeOpts are the attributes of ConvTranspose. Nil slices take
// the operator defaults (stride 1, no padding, dilation 1, no output
// padding); Pads are [x1_begin, x2_begin, …, x1_end, x2_end].
type ConvTransposeOpts struct {
	Strides       []int64
	Pads          []int64
	Dilations     []int64
	OutputPadding []int64
	Group         int64
}

// ConvTranspose appends ConvTranspose(x, w, b) (the gradient of Conv with
// respect to its input): x [N, C, ...], w [C, M/group, k...], b [M] or ""
// for no bias. With kernel k, stride s and no padding, each spatial size
// n becomes (n−1)·s + k.
func (g *Graph) ConvTranspose(x, w, b string, o ConvTransposeOpts) string {
	in := []string{x, w}
	if b != "" {
		in = append(in, b)
	}
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
	if o.OutputPadding != nil {
		a = append(a, IntsAttr("output_padding", o.OutputPadding...))
	}
	if o.Group > 1 {
		a = append(a, IntAttr("group", o.Group))
	}
	return g.Op("ConvTranspose", in, a...)
}

// PadMode is the mode attribute of Pad.
type PadMode string

// The Pad modes.
const (
	PadConstant PadMode = "constant" // fill with the constant value
	PadReflect  PadMode = "reflect"  // mirror without repeating the edge
	PadEdge     PadMode = "edge"     // repeat the edge value
)

// Pad appends Pad(x) with constant pads [x1_begin, x2_begin, …, x1_end,
// x2_end] (one begin and one end per axis of x; negative values crop) and
// the given mode; value is the fill of PadConstant in x's element type
// dt. Pads and the value are inputs from opset 11 on, attributes before.
func (g *Graph) Pad(x string, pads []int64, mode PadMode, dt DType, value float64) string {
	if g.cfg.Opset < 11 {
		return g.Op("Pad", []string{x}, IntsAttr("pads", pads...), StringAttr("mode", string(mode)), FloatAttr("value", float32(value)))
	}
	in := []string{x, g.Int64s(pads...)}
	if mode == PadConstant {
		in = append(in, g.Scalar(dt, value))
	}
	return g.Op("Pad", in, StringAttr("mode", string(mode)))
}
