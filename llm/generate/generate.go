package generate

import (
	"context"
	"fmt"

	"github.com/mlperf-go/inference/llm/sample"
)

// GreedyConfig configures greedy decoding: the sample.GreedyConfig rules
// (EOS, MinNewTokens, MaxNewTokens) plus a callback.
type GreedyConfig struct {
	sample.GreedyConfig
	// FirstToken, when set, is called with the index of a prompt and its
	// first generated token as soon as that token is known, before decoding
	// goes on (the loadgen's FirstToken for time-to-first-token). It runs
	// on the decoding goroutine and must return quickly.
	FirstToken func(prompt int, tok int32)
}

// Greedy decodes every prompt greedily with the KV cache: one prefill of the
// batch (left-padded), then one step per token for the rows still running;
// a row that ends (EOS or MaxNewTokens) leaves the batch. It returns the
// generated tokens of each prompt, EOS included when produced. The prompts
// are not modified.
func (m *Model) Greedy(ctx context.Context, prompts [][]int32, cfg GreedyConfig) ([][]int32, error) {
	return m.greedy(ctx, prompts, cfg, false)
}

// GreedyNaive is Greedy without the cache: every step runs the whole
// sequences (prompt and generated tokens) from scratch. It is the oracle of
// the cached path and works on models without past inputs.
func (m *Model) GreedyNaive(ctx context.Context, prompts [][]int32, cfg GreedyConfig) ([][]int32, error) {
	return m.greedy(ctx, prompts, cfg, true)
}

func (m *Model) greedy(ctx context.Context, prompts [][]int32, cfg GreedyConfig, naive bool) ([][]int32, error) {
	if !naive && !m.HasCache() {
		return nil, fmt.Errorf("%w: use GreedyNaive", ErrNoCache)
	}
	if err := m.checkPrompts(prompts, cfg.MaxNewTokens); err != nil {
		return nil, err
	}
	if _, err := sample.NewGreedy(cfg.GreedyConfig); err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	gs := make([]greedyRow, len(prompts))
	for i := range gs {
		gs[i].toks = make([]int32, 0, min(cfg.MaxNewTokens, 4096))
	}
	maxLen := 0
	for _, p := range prompts {
		maxLen = max(maxLen, len(p))
	}
	st := m.newState(maxLen + cfg.MaxNewTokens + 1)
	defer m.putState(st)
	live := make([]int, len(prompts)) // row → prompt
	for i := range live {
		live[i] = i
	}
	var seqs [][]int32
	if naive {
		seqs = make([][]int32, len(prompts))
		for i, p := range prompts {
			seqs[i] = append(make([]int32, 0, len(p)+cfg.MaxNewTokens), p...)
		}
	}
	if err := st.prefill(ctx, prompts); err != nil {
		return nil, err
	}
	toks := make([]int32, 0, len(prompts))
	keep := make([]int, 0, len(prompts))
	next := make([]int, 0, len(prompts))
	for {
		rows := st.last()
		toks, keep, next = toks[:0], keep[:0], next[:0]
		for r, p := range live {
			tok, done := gs[p].step(rows[r], &cfg.GreedyConfig)
			if cfg.FirstToken != nil && len(gs[p].toks) == 1 {
				cfg.FirstToken(p, tok)
			}
			if naive {
				seqs[p] = append(seqs[p], tok)
			}
			if !done {
				keep = append(keep, r)
				next = append(next, p)
				toks = append(toks, tok)
			}
		}
		if len(keep) == 0 {
			break
		}
		live = append(live[:0], next...)
		var err error
		if naive {
			batch := make([][]int32, len(live))
			for r, p := range live {
				batch[r] = seqs[p]
			}
			err = st.prefill(ctx, batch)
		} else {
			if err = st.keep(keep); err == nil {
				err = st.step(ctx, toks)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([][]int32, len(prompts))
	for i, g := range gs {
		out[i] = g.toks
	}
	return out, nil
}

// Beam runs a Hugging Face beam search (sample.BeamSearch with cfg) for
// every prompt with the KV cache: one prefill of the prompts, the cache
// forked to cfg.Beams rows per prompt, and after each step the rows
// reordered by parent beam; a prompt whose search is over leaves the batch.
// cfg.PromptLen is set per prompt from its length. It returns each prompt's
// hypotheses (sample.BeamSearch.Finalize), best first.
func (m *Model) Beam(ctx context.Context, prompts [][]int32, cfg sample.BeamConfig) ([][]sample.Hypothesis, error) {
	return m.beam(ctx, prompts, cfg, false)
}

// BeamNaive is Beam without the cache: every step runs each live beam's
// whole sequence from scratch.
func (m *Model) BeamNaive(ctx context.Context, prompts [][]int32, cfg sample.BeamConfig) ([][]sample.Hypothesis, error) {
	return m.beam(ctx, prompts, cfg, true)
}

func (m *Model) beam(ctx context.Context, prompts [][]int32, cfg sample.BeamConfig, naive bool) ([][]sample.Hypothesis, error) {
	if !naive && !m.HasCache() {
		return nil, fmt.Errorf("%w: use BeamNaive", ErrNoCache)
	}
	if err := m.checkPrompts(prompts, cfg.MaxNewTokens); err != nil {
		return nil, err
	}
	B := cfg.Beams
	bs := make([]*sample.BeamSearch, len(prompts))
	for i, p := range prompts {
		c := cfg
		c.PromptLen = len(p)
		s, err := sample.NewBeamSearch(c)
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		bs[i] = s
	}
	maxLen := 0
	for _, p := range prompts {
		maxLen = max(maxLen, len(p))
	}
	st := m.newState(maxLen + cfg.MaxNewTokens + 1)
	defer m.putState(st)
	if err := st.prefill(ctx, prompts); err != nil {
		return nil, err
	}
	// Rows of prompt live[g] are [g*rpg, (g+1)*rpg): one row per prompt
	// after the prefill, B after the first step.
	live := make([]int, len(prompts))
	for i := range live {
		live[i] = i
	}
	rpg := 1
	var src []int
	var toks []int32
	var next []int
	for {
		rows := st.last()
		src, toks, next = src[:0], toks[:0], next[:0]
		for g, p := range live {
			tk, par, done, err := bs[p].StepLogits(rows[g*rpg : (g+1)*rpg])
			if err != nil {
				return nil, fmt.Errorf("generate: prompt %d: %w", p, err)
			}
			if done {
				continue
			}
			next = append(next, p)
			for j := range B {
				src = append(src, g*rpg+par[j])
				toks = append(toks, tk[j])
			}
		}
		if len(next) == 0 {
			break
		}
		live = append(live[:0], next...)
		rpg = B
		var err error
		if naive {
			batch := make([][]int32, 0, len(live)*B)
			for _, p := range live {
				for j := range B {
					batch = append(batch, append(append(make([]int32, 0, len(prompts[p])+bs[p].Generated()), prompts[p]...), bs[p].Beam(j)...))
				}
			}
			err = st.prefill(ctx, batch)
		} else {
			if err = st.keep(src); err == nil {
				err = st.step(ctx, toks)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([][]sample.Hypothesis, len(prompts))
	for i, s := range bs {
		h, err := s.Finalize()
		if err != nil {
			return nil, fmt.Errorf("generate: prompt %d: %w", i, err)
		}
		out[i] = h
	}
	return out, nil
}

// greedyRow is sample.Greedy for a row the loop owns: the same rules
// (EOS read as -Inf while fewer than MinNewTokens tokens exist, argmax with
// the first maximum winning and NaN above all, stop on EOS or MaxNewTokens),
// but the EOS is masked in place in the row (the loop's own buffer) before
// sample.Argmax, without the per-element closure of a masked argmax.
type greedyRow struct {
	toks []int32
}

func (g *greedyRow) step(row []float32, cfg *sample.GreedyConfig) (tok int32, done bool) {
	if len(g.toks) < cfg.MinNewTokens {
		cfg.MaskEOS(row)
	}
	tok = int32(sample.Argmax(row))
	g.toks = append(g.toks, tok)
	return tok, cfg.IsEOS(tok) || len(g.toks) >= cfg.MaxNewTokens
}
