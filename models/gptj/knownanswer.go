package gptj

import (
	"fmt"
	"strings"

	"github.com/mlperf-go/inference/onnx"
)

// The known-answer decoder: a GPT-J graph (the builder's, cache I/O
// included) whose weights make decoding count: after token t the most
// likely next token is always (t+1) mod (Vocab−1), by a wide margin, and
// the last token, KnownAnswerEOS, is the least likely of all. Beam search
// on any prompt then returns the counting sequence of MaxNewTokens tokens,
// by construction, so an end-to-end run that returns anything else has
// broken batching, padding, the cache, the beam bookkeeping, response
// encoding or the accuracy log. (An EOS reachable by counting would not
// do: with early stopping, beam search keeps hypotheses that take one
// unlikely step to reach it.)
//
// Weights: the embedding is the identity (Hidden = Vocab); the attention
// and MLP weights and biases are zero (the residual stream stays one-hot);
// LayerNorms have scale one and bias zero; lm_head maps hidden unit i to
// token (i+1) mod (Vocab−1), with bias −5 on KnownAnswerEOS and 0
// elsewhere.

// knownAnswerConfig is the known-answer decoder's architecture.
var knownAnswerConfig = config{Layers: 1, Hidden: 96, Heads: 4, RotaryDim: 8, Inner: 8, Vocab: 96, MaxPositions: 512, LNEps: 1e-5}

// knownAnswerEOS is the known-answer decoder's end token, never chosen.
const knownAnswerEOS = 95

// knownAnswerNext is the token the known-answer decoder favours after t.
func knownAnswerNext(t int32) int32 { return (t + 1) % knownAnswerEOS }

// knownAnswerArch builds the known-answer decoder.
func knownAnswerArch() (*onnx.Graph, error) {
	c := knownAnswerConfig
	g, err := arch(c, archSeed)
	if err != nil {
		return nil, err
	}
	inits := g.Initializers() // the graph's own slice: replaced in place
	for i, in := range inits {
		if !strings.Contains(in.Name, ".") {
			continue // the graph's own constants
		}
		v := make([]float32, in.Elements())
		switch {
		case in.Name == "transformer.wte.weight": // [Vocab, Hidden], identity
			for t := range c.Vocab {
				v[t*c.Hidden+t] = 1
			}
		case in.Name == "lm_head.weight": // [Hidden, Vocab]
			for h := range int64(knownAnswerEOS) {
				v[h*c.Vocab+(h+1)%knownAnswerEOS] = 1
			}
		case in.Name == "lm_head.bias":
			v[knownAnswerEOS] = -5
		case strings.Contains(in.Name, "ln_") && strings.HasSuffix(in.Name, ".weight"):
			for j := range v {
				v[j] = 1
			}
		case strings.HasSuffix(in.Name, ".weight") || strings.HasSuffix(in.Name, ".bias"):
			// zero: attention and MLP add nothing; LayerNorm and lm_head biases are zero
		default:
			return nil, fmt.Errorf("gptj: known-answer model: unexpected parameter %s", in.Name)
		}
		*inits[i] = *onnx.NewTensor(in.Name, onnx.Float, in.Dims, v)
	}
	return g, nil
}
