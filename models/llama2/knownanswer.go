package llama2

import (
	"fmt"
	"strings"

	"github.com/mlperf-go/inference/onnx"
)

// The known-answer decoder: a Llama 2 graph (the builder's, cache I/O
// included) whose weights make greedy decoding count: after token t it
// always predicts (t+1) mod Vocab. Its output on any prompt is known by
// construction (up to EOS or the token limit), so an end-to-end run that
// returns anything else has broken batching, padding, the cache, EOS
// handling, response encoding or the accuracy log.
//
// Weights: the embedding is the identity (Hidden = Vocab), every
// projection of the layer is zero (attention and MLP add nothing, so the
// residual stream stays one-hot), the norms are one, and lm_head maps
// hidden unit i to token (i+1) mod Vocab.

// knownAnswerConfig is the known-answer decoder's architecture.
var knownAnswerConfig = config{Layers: 1, Hidden: 96, Heads: 4, KVHeads: 2, Intermediate: 8, Vocab: 96, MaxPositions: 512, RopeTheta: 10000, RMSEps: 1e-5}

// knownAnswerNext is the token the known-answer decoder predicts after t.
func knownAnswerNext(t int32) int32 { return (t + 1) % int32(knownAnswerConfig.Vocab) }

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
		n := in.Elements()
		v := make([]float32, n)
		switch {
		case in.Name == "model.embed_tokens.weight": // [Vocab, Hidden], identity
			for t := range c.Vocab {
				v[t*c.Hidden+t] = 1
			}
		case in.Name == "lm_head.weight": // [Hidden, Vocab]
			for h := range c.Hidden {
				v[h*c.Vocab+(h+1)%c.Vocab] = 1
			}
		case strings.HasSuffix(in.Name, "layernorm.weight") || in.Name == "model.norm.weight":
			for j := range v {
				v[j] = 1
			}
		case strings.HasSuffix(in.Name, "_proj.weight"):
			// zero: the layer adds nothing to the residual stream
		default:
			return nil, fmt.Errorf("llama2: known-answer model: unexpected parameter %s", in.Name)
		}
		*inits[i] = *onnx.NewTensor(in.Name, onnx.Float, in.Dims, v)
	}
	return g, nil
}
