package onnx

import "math"

// Operators and compositions the diffusion models (the SDXL UNet, its VAE
// decoder and the CLIP text encoders) need: group normalisation, SiLU,
// sinusoidal embeddings, nearest-neighbour upsampling and multi-head
// attention. Each is written with operators of the default domain that
// every execution provider has at opset 17.

// Sin appends Sin(x).
func (g *Graph) Sin(x string) string { return g.Op("Sin", []string{x}) }

// Cos appends Cos(x).
func (g *Graph) Cos(x string) string { return g.Op("Cos", []string{x}) }

// SiLU appends x·sigmoid(x) (torch.nn.SiLU, "swish").
func (g *Graph) SiLU(x string) string { return g.Mul(x, g.Sigmoid(x)) }

// QuickGelu appends x·sigmoid(1.702·x), the activation of OpenAI's CLIP
// ViT-L/14 text encoder (transformers' "quick_gelu").
func (g *Graph) QuickGelu(x string) string {
	return g.Mul(x, g.Sigmoid(g.Mul(x, g.Scalar(Float, 1.702))))
}

// GroupNorm appends torch.nn.GroupNorm over x [N, C, H, W] (float32) with
// groups groups: each group of C/groups channels is normalised over its
// channels and positions with the biased variance and eps, then scaled and
// shifted per channel by scale [C] and bias [C]. It is the composition
// PyTorch's ONNX exporter writes (Reshape to [N, groups, -1],
// InstanceNormalization with unit scale, Reshape back, affine), which
// ONNX Runtime runs with its instance-norm kernel; the GroupNormalization
// operator needs opset 18 and changed meaning in opset 21.
func (g *Graph) GroupNorm(x, scale, bias string, groups int64, eps float32) string {
	ones := make([]float32, groups)
	for i := range ones {
		ones[i] = 1
	}
	zeros := make([]float32, groups)
	r := g.ReshapeTo(x, 0, groups, -1)
	n := g.Op("InstanceNormalization", []string{r,
		g.Const("", Float, []int64{groups}, ones),
		g.Const("", Float, []int64{groups}, zeros)}, FloatAttr("epsilon", eps))
	y := g.Reshape(n, g.Shape(x))
	y = g.Mul(y, g.ReshapeTo(scale, -1, 1, 1))
	return g.Add(y, g.ReshapeTo(bias, -1, 1, 1))
}

// UpsampleNearest2x appends nearest-neighbour upsampling by 2 of x
// [N, C, H, W] to [N, C, 2H, 2W] (torch.nn.functional.interpolate with
// scale_factor 2, mode "nearest"), without Resize: each value is broadcast
// into a 2×2 block (Unsqueeze, Expand) and the blocks laid out by Reshape.
// Dimensions may be dynamic.
func (g *Graph) UpsampleNearest2x(x string) string {
	u := g.Unsqueeze(x, 3, 5) // [N, C, H, 1, W, 1]
	e := g.Expand(u, g.Int64s(1, 1, 1, 2, 1, 2))
	shape := g.Mul(g.Shape(x), g.Int64s(1, 1, 2, 2))
	return g.Reshape(e, shape)
}

// Attention appends scaled dot-product multi-head attention: q [B, Lq,
// heads·headDim] attends to k, v [B, Lk, heads·headDim]; the result is
// [B, Lq, heads·headDim] with the heads concatenated in order (as
// torch.nn.functional.scaled_dot_product_attention after the usual
// head split). mask, if not "", is added to the [B, heads, Lq, Lk]
// scores before the softmax (e.g. CausalMask). The scale 1/√headDim is
// applied to the scores.
func (g *Graph) Attention(q, k, v string, heads, headDim int64, mask string) string {
	qh := g.Transpose(g.ReshapeTo(q, 0, 0, heads, headDim), 0, 2, 1, 3) // [B,H,Lq,d]
	kh := g.Transpose(g.ReshapeTo(k, 0, 0, heads, headDim), 0, 2, 3, 1) // [B,H,d,Lk]
	vh := g.Transpose(g.ReshapeTo(v, 0, 0, heads, headDim), 0, 2, 1, 3) // [B,H,Lk,d]
	s := g.Mul(g.MatMul(qh, kh), g.Scalar(Float, 1/math.Sqrt(float64(headDim))))
	if mask != "" {
		s = g.Add(s, mask)
	}
	o := g.MatMul(g.Softmax(s, -1), vh) // [B,H,Lq,d]
	return g.ReshapeTo(g.Transpose(o, 0, 2, 1, 3), 0, 0, heads*headDim)
}

// CausalMask adds a constant [n, n] float32 mask, 0 on and below the
// diagonal and the lowest float32 above it (transformers' causal mask for
// CLIP's text encoder), for Attention, and returns its name.
func (g *Graph) CausalMask(n int64) string {
	m := make([]float32, n*n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			m[i*n+j] = -math.MaxFloat32
		}
	}
	return g.Const("", Float, []int64{n, n}, m)
}
