package sample

import (
	"fmt"
	"math"
	"slices"
)

// argmaxMasked is Argmax of row with row[skip] read as -Inf (skip < 0: no
// mask), without writing to row.
func argmaxMasked(row []float32, skip int) int {
	negInf := float32(math.Inf(-1))
	at := func(i int) float32 {
		if i == skip {
			return negInf
		}
		return row[i]
	}
	best := 0
	for i := 1; i < len(row); i++ {
		v, b := at(i), at(best)
		if b != b {
			return best
		}
		if v > b || v != v {
			best = i
		}
	}
	return best
}

// GreedyConfig configures greedy decoding of one sequence, with the meaning
// of the Hugging Face generate arguments of the same names.
type GreedyConfig struct {
	// EOS is the end-of-sequence token id (2 for Llama 2). Negative: none.
	EOS int32
	// MinNewTokens: while fewer tokens than this have been generated, the
	// EOS logit is replaced by -Inf before the argmax
	// (MinNewTokensLengthLogitsProcessor). Llama 2 uses 1.
	MinNewTokens int
	// MaxNewTokens ends the sequence after this many tokens (1024 for
	// Llama 2). Must be positive.
	MaxNewTokens int
	// MoreEOS are further ids that end the sequence like EOS and are
	// masked with it under MinNewTokens: a model whose generation config
	// lists several (Llama 3.1 Instruct: <|end_of_text|> and <|eom_id|>
	// besides <|eot_id|>), as vLLM's stop_token_ids. Read only.
	MoreEOS []int32
}

// IsZero reports whether c is the zero config.
func (c GreedyConfig) IsZero() bool {
	return c.EOS == 0 && c.MinNewTokens == 0 && c.MaxNewTokens == 0 && c.MoreEOS == nil
}

// IsEOS reports whether tok ends a sequence: EOS (when not negative) or
// one of MoreEOS.
func (c *GreedyConfig) IsEOS(tok int32) bool {
	return (c.EOS >= 0 && tok == c.EOS) || slices.Contains(c.MoreEOS, tok)
}

// MaskEOS sets the logits of every end-of-sequence id inside row to -Inf.
func (c *GreedyConfig) MaskEOS(row []float32) {
	negInf := float32(math.Inf(-1))
	if c.EOS >= 0 && int(c.EOS) < len(row) {
		row[c.EOS] = negInf
	}
	for _, id := range c.MoreEOS {
		if id >= 0 && int(id) < len(row) {
			row[id] = negInf
		}
	}
}

// Greedy decodes one sequence by argmax. It is not safe for concurrent use;
// a batched decode loop keeps one Greedy per sequence.
type Greedy struct {
	cfg    GreedyConfig
	tokens []int32
	done   bool
}

// NewGreedy checks cfg and returns a decoder with no tokens yet.
func NewGreedy(cfg GreedyConfig) (*Greedy, error) {
	if cfg.MaxNewTokens <= 0 {
		return nil, fmt.Errorf("%w: greedy: MaxNewTokens %d must be positive", ErrBadInput, cfg.MaxNewTokens)
	}
	if cfg.MinNewTokens < 0 {
		return nil, fmt.Errorf("%w: greedy: MinNewTokens %d is negative", ErrBadInput, cfg.MinNewTokens)
	}
	return &Greedy{cfg: cfg, tokens: make([]int32, 0, min(cfg.MaxNewTokens, 4096))}, nil
}

// Step takes the last-position logits of the sequence (vocabulary wide; not
// modified), appends the argmax token and returns it, with done true when
// that token is EOS or the sequence has reached MaxNewTokens. The EOS is
// kept in Tokens, as Hugging Face keeps it. Calling Step after done is an
// error.
func (g *Greedy) Step(logits []float32) (tok int32, done bool, err error) {
	if g.done {
		return 0, true, fmt.Errorf("%w: greedy: Step after the sequence ended", ErrBadInput)
	}
	if len(logits) == 0 {
		return 0, false, fmt.Errorf("%w: greedy: empty logits row", ErrBadInput)
	}
	mask := len(g.tokens) < g.cfg.MinNewTokens
	var best int
	if mask && len(g.cfg.MoreEOS) > 0 {
		row := slices.Clone(logits)
		g.cfg.MaskEOS(row)
		best = Argmax(row)
		if g.cfg.IsEOS(int32(best)) {
			return 0, false, fmt.Errorf("%w: greedy: every token of the vocabulary is an end-of-sequence id, which are masked", ErrBadInput)
		}
	} else {
		mask = mask && g.cfg.EOS >= 0 && int(g.cfg.EOS) < len(logits)
		if mask && len(logits) == 1 {
			return 0, false, fmt.Errorf("%w: greedy: vocabulary of one token, the EOS, which is masked", ErrBadInput)
		}
		skip := -1
		if mask {
			skip = int(g.cfg.EOS)
		}
		best = argmaxMasked(logits, skip)
	}
	tok = int32(best)
	g.tokens = append(g.tokens, tok)
	g.done = g.cfg.IsEOS(tok) || len(g.tokens) >= g.cfg.MaxNewTokens
	return tok, g.done, nil
}

// Done reports whether the sequence has ended.
func (g *Greedy) Done() bool { return g.done }

// Tokens returns the generated tokens so far, EOS included when it was
// produced. The slice is owned by g and valid until the next Step.
func (g *Greedy) Tokens() []int32 { return g.tokens }
