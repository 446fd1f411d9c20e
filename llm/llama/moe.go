package llama

import (
	"fmt"

	"github.com/mlperf-go/inference/llm/decoder"
	"github.com/mlperf-go/inference/onnx"
)

// MoE is the sparse mixture-of-experts MLP of Mixtral (transformers'
// MixtralSparseMoeBlock) for a config with experts: the router
// prefix+"block_sparse_moe.gate.weight" ([Hidden, Experts]) scores every
// token, softmax over all the experts' logits in float32, the
// ExpertsPerToken highest probabilities kept and divided by their sum,
// and the output is the sum over the chosen experts of weight ×
// expert(x), with expert e the SwiGLU w2(silu(w1·x) ⊙ w3·x) of the
// weights prefix+"block_sparse_moe.experts.e.w{1,2,3}.weight".
//
// Only the chosen experts run: for each expert the graph gathers the
// tokens routed to it (NonZero of its selection), runs its FFN on them
// and adds the weighted result into the output rows with ScatterND
// (reduction add), in expert order from zeros as transformers'
// index_add_ loop does, so the sums round alike.
func MoE(b *decoder.Builder, c Config, prefix, x string) string {
	out, _, _ := moe(b, c, prefix, x)
	return out
}

// moe appends the block and returns its output [B,S,Hidden] with the
// routing: the chosen experts [B·S, k] (int64, in descending weight) and
// their renormalised weights [B·S, k].
func moe(b *decoder.Builder, c Config, prefix, x string) (out, experts, weights string) {
	g := b.G
	p := prefix + "block_sparse_moe."
	flat := g.ReshapeTo(x, -1, c.Hidden) // [T,H]
	logits := b.Linear(p+"gate", flat, c.Hidden, c.Experts, false)
	probs := g.Softmax(logits, -1)
	top, idx := g.TopK(probs, g.Int64s(c.ExpertsPerToken), -1, true)
	w := g.Div(top, g.ReduceSum(top, []int64{-1}, true))
	acc := g.ConstantOfShape(g.Shape(flat), onnx.Float, 0)
	for e := range c.Experts {
		hit := g.Equal(idx, g.Const(g.Unique("expert"), onnx.Int64, nil, []int64{e})) // [T,k]
		at := g.Transpose(g.NonZero(hit), 1, 0)                                       // [N,2]: token, slot
		tok := g.SliceConst(at, []int64{0}, []int64{1}, []int64{1})                   // [N,1]
		xs := g.Gather(flat, g.Squeeze(tok, 1), 0)                                    // [N,H]
		ws := g.Unsqueeze(g.Op("GatherND", []string{w, at}), 1)                       // [N,1]
		ep := fmt.Sprintf("%sexperts.%d.", p, e)
		y := g.Mul(GatedFFN(b, ep+"w1", ep+"w3", ep+"w2", xs, c.Hidden, c.Intermediate), ws)
		acc = g.Op("ScatterND", []string{acc, tok, y}, onnx.StringAttr("reduction", "add"))
	}
	return g.Reshape(acc, g.Shape(x)), idx, w
}
