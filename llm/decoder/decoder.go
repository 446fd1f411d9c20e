// Package decoder writes the parts shared by decoder-only transformer graphs
// (GPT-J, Llama 2) with the onnx package, in the I/O convention of a Hugging
// Face optimum "with past" export that llm/generate runs:
//
//	input_ids               int64 [batch, seq]
//	attention_mask          int64 [batch, past+seq]
//	position_ids            int64 [batch, seq]
//	past_key_values.N.key   float [batch, kv_heads, past, head_dim]  (and .value)
//	→ logits                float [batch, seq, vocab]
//	→ present.N.key         float [batch, kv_heads, past+seq, head_dim]  (and .value)
//
// The past length is dynamic and may be 0 (the prefill). Attention masks
// the padded columns (attention_mask 0) and the future (a query at column
// past+i sees columns ≤ past+i); a query row with no visible column gets a
// uniform softmax, as transformers' finite minimum does, so padded rows
// never produce NaN. Grouped-query attention shares each key/value head
// among kv_heads/heads consecutive query heads (transformers' repeat_kv).
//
// A Builder is not safe for concurrent use.
package decoder

import (
	"fmt"
	"math"

	"github.com/mlperf-go/inference/llm/kvcache"
	"github.com/mlperf-go/inference/onnx"
)

// Shape is the attention geometry of a decoder.
type Shape struct {
	Layers  int64
	Heads   int64 // query heads
	KVHeads int64 // key/value heads (Heads for plain multi-head attention)
	HeadDim int64
	Vocab   int64
	// IO is the element type of the past/present and logits tensors:
	// onnx.Float (0 means Float) or onnx.Float16, as a float16 optimum
	// export has. The graph computes in float32 either way; a float16 past
	// is widened on entry, present and logits are rounded on exit.
	IO onnx.DType
}

// Builder holds a graph being built and the shared values of its inputs.
type Builder struct {
	G     *onnx.Graph
	Shape Shape

	InputIDs string // int64 [B,S]
	Pos      string // float32 [B,S,1]: position_ids as float, for rotary tables

	allowed  string // bool [B,1,1,S,T]
	presents []string
	lowest   string
}

// Dimension names of the graph's inputs and outputs.
const (
	DimBatch = "batch"
	DimSeq   = "sequence"
	DimPast  = "past_sequence"
	DimTotal = "total_sequence"
)

// New declares the decoder inputs on g and builds the attention mask shared
// by every layer.
func New(g *onnx.Graph, s Shape) (*Builder, error) {
	if s.Layers <= 0 || s.Heads <= 0 || s.KVHeads <= 0 || s.HeadDim <= 0 || s.Vocab <= 1 {
		return nil, fmt.Errorf("decoder: bad shape %+v", s)
	}
	if s.IO == 0 {
		s.IO = onnx.Float
	}
	if s.IO != onnx.Float && s.IO != onnx.Float16 {
		return nil, fmt.Errorf("decoder: I/O type %v, want float32 or float16", s.IO)
	}
	if s.Heads%s.KVHeads != 0 {
		return nil, fmt.Errorf("decoder: %d query heads are not a multiple of %d kv heads", s.Heads, s.KVHeads)
	}
	b := &Builder{G: g, Shape: s}
	B, S, P, T := onnx.Sym(DimBatch), onnx.Sym(DimSeq), onnx.Sym(DimPast), onnx.Sym(DimTotal)
	b.InputIDs = g.Input("input_ids", onnx.Int64, B, S)
	mask := g.Input("attention_mask", onnx.Int64, B, T)
	pos := g.Input("position_ids", onnx.Int64, B, S)
	for l := range s.Layers {
		k, v := kvcache.PastNames(int(l))
		g.Input(k, s.IO, B, onnx.Fix(s.KVHeads), P, onnx.Fix(s.HeadDim))
		g.Input(v, s.IO, B, onnx.Fix(s.KVHeads), P, onnx.Fix(s.HeadDim))
	}
	b.Pos = g.Unsqueeze(g.Cast(pos, onnx.Float), -1)

	// causal[S,T] = column ≤ row + past, from Trilu(ones, k = past)
	past0, _ := kvcache.PastNames(0)
	seqLen := g.SliceConst(g.Shape(b.InputIDs), []int64{1}, []int64{2}, []int64{0})
	total := g.SliceConst(g.Shape(mask), []int64{1}, []int64{2}, []int64{0})
	pastLen := g.Squeeze(g.SliceConst(g.Shape(past0), []int64{2}, []int64{3}, []int64{0}), 0)
	ones := g.ConstantOfShape(g.Concat(0, seqLen, total), onnx.Int64, 1)
	causal := g.Cast(g.Op("Trilu", []string{ones, pastLen}, onnx.IntAttr("upper", 0)), onnx.Bool)
	causal = g.Unsqueeze(causal, 0, 1, 2)                    // [1,1,1,S,T]
	padding := g.Unsqueeze(g.Cast(mask, onnx.Bool), 1, 2, 3) // [B,1,1,1,T]
	b.allowed = g.Op("And", []string{causal, padding})       // [B,1,1,S,T]
	b.lowest = g.Scalar(onnx.Float, -math.MaxFloat32)
	return b, nil
}

// Param adds a seeded float32 weight.
func (b *Builder) Param(name string, dims []int64, init onnx.Init) string {
	return b.G.Param(name, onnx.Float, dims, init)
}

// Linear appends x·W (+ bias) with W [in, out] drawn from U(±√(3/in)) (unit
// output variance for unit inputs) and, when bias, a bias drawn from
// U(±0.05), so that a misplaced bias changes the output.
func (b *Builder) Linear(name, x string, in, out int64, bias bool) string {
	a := math.Sqrt(3 / float64(in))
	y := b.G.MatMul(x, b.Param(name+".weight", []int64{in, out}, onnx.Uniform(-a, a)))
	if bias {
		y = b.G.Add(y, b.Param(name+".bias", []int64{out}, onnx.Uniform(-0.05, 0.05)))
	}
	return y
}

// Heads reshapes [B,S,n·D] to [B,S,n,D].
func (b *Builder) Heads(x string, n int64) string {
	return b.G.ReshapeTo(x, 0, 0, n, b.Shape.HeadDim)
}

// Attention is the attention core of layer: q [B,S,Heads,D], k and v
// [B,S,KVHeads,D] (position embeddings already applied). It appends the new
// keys and values to the layer's past (the present.layer.key/value outputs)
// and returns softmax(q·kᵀ/√D + mask)·v as [B,S,Heads·D].
func (b *Builder) Attention(layer int, q, k, v string) string {
	g, s := b.G, b.Shape
	pk, pv := kvcache.PastNames(layer)
	qk, qv := kvcache.PresentNames(layer)
	kT := g.Transpose(k, 0, 2, 1, 3) // [B,KV,S,D]
	vT := g.Transpose(v, 0, 2, 1, 3)
	var presK, presV string
	if s.IO == onnx.Float16 {
		presK = g.Concat(2, g.Cast(pk, onnx.Float), kT)
		presV = g.Concat(2, g.Cast(pv, onnx.Float), vT)
		g.Node("Cast", []string{presK}, []string{qk}, onnx.IntAttr("to", int64(onnx.Float16)))
		g.Node("Cast", []string{presV}, []string{qv}, onnx.IntAttr("to", int64(onnx.Float16)))
	} else {
		presK = g.Node("Concat", []string{pk, kT}, []string{qk}, onnx.IntAttr("axis", 2))[0]
		presV = g.Node("Concat", []string{pv, vT}, []string{qv}, onnx.IntAttr("axis", 2))[0]
	}
	b.presents = append(b.presents, qk, qv)

	grp := s.Heads / s.KVHeads
	q5 := g.ReshapeTo(g.Transpose(q, 0, 2, 1, 3), 0, s.KVHeads, grp, -1, s.HeadDim) // [B,KV,G,S,D]
	k5 := g.Transpose(g.Unsqueeze(presK, 2), 0, 1, 2, 4, 3)                         // [B,KV,1,D,T]
	v5 := g.Unsqueeze(presV, 2)                                                     // [B,KV,1,T,D]
	scores := g.Div(g.MatMul(q5, k5), g.Scalar(onnx.Float, math.Sqrt(float64(s.HeadDim))))
	scores = g.Where(b.allowed, scores, b.lowest)
	probs := g.Softmax(scores, -1)
	out := g.MatMul(probs, v5)                        // [B,KV,G,S,D]
	out = g.ReshapeTo(out, 0, s.Heads, -1, s.HeadDim) // [B,H,S,D]
	out = g.Transpose(out, 0, 2, 1, 3)                // [B,S,H,D]
	return g.ReshapeTo(out, 0, 0, s.Heads*s.HeadDim)
}

// Angles adds the rotary inverse frequencies 1/theta^(2i/dim), i < dim/2
// (as transformers computes them in float32), and returns the rotary
// angles position·inv_freq as [B,S,dim/2].
func (b *Builder) Angles(dim int64, theta float64) string {
	inv := make([]float32, dim/2)
	for i := range inv {
		e := float32(2*i) / float32(dim)
		inv[i] = 1 / float32(math.Pow(theta, float64(e)))
	}
	return b.AnglesOf(inv)
}

// AnglesOf adds the rotary inverse frequencies inv (one per pair of head
// elements) and returns the rotary angles position·inv as [B,S,len(inv)].
func (b *Builder) AnglesOf(inv []float32) string {
	f := b.G.Const("", onnx.Float, []int64{int64(len(inv))}, inv)
	return b.G.Mul(b.Pos, f)
}

// Finish declares the outputs: logits [B,S,Vocab] (the value logits), then
// present.N.key/value of every layer.
func (b *Builder) Finish(logits string) error {
	g, s := b.G, b.Shape
	if int64(len(b.presents)) != 2*s.Layers {
		return fmt.Errorf("decoder: %d present values for %d layers", len(b.presents), s.Layers)
	}
	var name string
	if s.IO == onnx.Float16 {
		name = g.Node("Cast", []string{logits}, []string{"logits"}, onnx.IntAttr("to", int64(onnx.Float16)))[0]
	} else {
		name = g.Rename(logits, "logits")
	}
	B, S, T := onnx.Sym(DimBatch), onnx.Sym(DimSeq), onnx.Sym(DimTotal)
	g.Output(name, s.IO, B, S, onnx.Fix(s.Vocab))
	for _, p := range b.presents {
		g.Output(p, s.IO, B, onnx.Fix(s.KVHeads), T, onnx.Fix(s.HeadDim))
	}
	return g.Err()
}
