package sample

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// LengthMode says which length divides a finished hypothesis's summed
// log-probability in the length penalty. Hugging Face changed it in late
// 2023 (transformers PRs #27351 and #27808); which one the GPT-J reference
// ROUGE figures were made with is not pinned (mlcommons/inference language/gpt-j).
type LengthMode int

const (
	// LengthWithPrompt is transformers ≈4.30 and earlier: the length of the
	// whole stored sequence, prompt included and the closing EOS excluded;
	// the heuristic is_done test uses prompt + generated tokens so far.
	LengthWithPrompt LengthMode = iota
	// LengthGenerated is transformers after those PRs: the number of
	// generated tokens, counting the EOS that closes a hypothesis (a
	// hypothesis closed at step n has length n+1; a live beam added at
	// finalisation has its own generated length).
	LengthGenerated
)

// BeamConfig configures a beam search with the meaning of the Hugging Face
// generate arguments of the same names. GPT-J's reference uses Beams 4,
// EOS 50256, MinNewTokens 30, MaxNewTokens 128, LengthPenalty 1,
// EarlyStopping true.
type BeamConfig struct {
	Beams        int   // num_beams, at least 1
	EOS          int32 // eos_token_id; negative: none
	MinNewTokens int   // EOS masked to -Inf while fewer tokens were generated
	MaxNewTokens int   // max_new_tokens, at least 1
	// PromptLen is the prompt length in tokens; it enters the length
	// penalty in LengthWithPrompt mode and the EOS-append rule of Finalize.
	PromptLen     int
	LengthPenalty float64 // length_penalty (HF default 1.0; 0 is allowed)
	LengthMode    LengthMode
	// EarlyStopping true stops as soon as Beams hypotheses are finished;
	// false uses HF's heuristic (stop when no live beam can beat the worst
	// finished hypothesis at the current length).
	EarlyStopping bool
	// NumReturn is num_return_sequences, 1 when zero; at most Beams.
	NumReturn int
}

// Hypothesis is one finished sequence of a beam search.
type Hypothesis struct {
	// Tokens are the generated ids, prompt excluded, with the EOS that
	// Finalize appends when the sequence is shorter than the maximum length.
	Tokens []int32
	// Score is the summed log-probability divided by length^LengthPenalty.
	Score float64
}

// BeamSearch is the Hugging Face beam search (BeamSearchScorer with
// BeamHypotheses, one batch entry) as a step machine. Each Step takes the
// log-probabilities of the live beams, returns the token each beam appends
// and the beam it descends from (the decode loop reorders its KV cache by
// it), and says when the search is over; Finalize then returns the best
// hypotheses. A BeamSearch is not safe for concurrent use.
//
// The rules, per step (mlcommons/inference language/gpt-j backend.py, transformers beam search): EOS is -Inf while fewer than
// MinNewTokens tokens exist; each beam's running score (float32, initially
// 0 for beam 0 and -1e9 for the others) is added to its row; the top
// 2×Beams candidates of the flattened Beams×vocab scores are walked in
// rank order (ties: lower beam, then lower token, first); an EOS candidate
// ranked within the top Beams closes a hypothesis (stored without the EOS,
// scored with it), an EOS ranked lower is skipped, any other candidate
// fills the next live beam until Beams are filled. Finished hypotheses are
// kept Beams at most, the worst evicted (the earliest inserted on ties).
// The search stops when the hypotheses are full and EarlyStopping is set
// (or the heuristic says so), or when MaxNewTokens tokens exist.
type BeamSearch struct {
	cfg     BeamConfig
	scores  []float32 // running score per live beam
	seqs    [][]int32 // generated tokens per live beam
	spare   [][]int32
	hyps    []Hypothesis
	worst   float64
	cur     int // tokens generated so far
	done    bool
	scorer  bool // the finished hypotheses decided the end (HF's _done)
	cand    []candidate
	next    []float32
	tokens  []int32
	parents []int
	tops    []beamTop
}

type candidate struct {
	score float32
	idx   int     // beam*vocab + token
	x     float32 // the row value the score comes from (-Inf when masked)
}

// NewBeamSearch checks cfg and returns a search at step 0.
func NewBeamSearch(cfg BeamConfig) (*BeamSearch, error) {
	if cfg.Beams < 1 {
		return nil, fmt.Errorf("%w: beam search: Beams %d must be at least 1", ErrBadInput, cfg.Beams)
	}
	if cfg.MaxNewTokens < 1 {
		return nil, fmt.Errorf("%w: beam search: MaxNewTokens %d must be at least 1", ErrBadInput, cfg.MaxNewTokens)
	}
	if cfg.MinNewTokens < 0 {
		return nil, fmt.Errorf("%w: beam search: MinNewTokens %d is negative", ErrBadInput, cfg.MinNewTokens)
	}
	if cfg.PromptLen < 0 || (cfg.LengthMode == LengthWithPrompt && cfg.PromptLen == 0) {
		return nil, fmt.Errorf("%w: beam search: PromptLen %d must be positive in LengthWithPrompt mode", ErrBadInput, cfg.PromptLen)
	}
	if cfg.LengthMode != LengthWithPrompt && cfg.LengthMode != LengthGenerated {
		return nil, fmt.Errorf("%w: beam search: unknown LengthMode %d", ErrBadInput, cfg.LengthMode)
	}
	if math.IsNaN(cfg.LengthPenalty) || math.IsInf(cfg.LengthPenalty, 0) {
		return nil, fmt.Errorf("%w: beam search: LengthPenalty %v is not finite", ErrBadInput, cfg.LengthPenalty)
	}
	if cfg.NumReturn == 0 {
		cfg.NumReturn = 1
	}
	if cfg.NumReturn < 1 || cfg.NumReturn > cfg.Beams {
		return nil, fmt.Errorf("%w: beam search: NumReturn %d must be in [1, Beams=%d]", ErrBadInput, cfg.NumReturn, cfg.Beams)
	}
	b := &BeamSearch{
		cfg:     cfg,
		scores:  make([]float32, cfg.Beams),
		seqs:    make([][]int32, cfg.Beams),
		spare:   make([][]int32, cfg.Beams),
		worst:   1e9,
		cand:    make([]candidate, 0, 2*cfg.Beams),
		next:    make([]float32, cfg.Beams),
		tokens:  make([]int32, cfg.Beams),
		parents: make([]int, cfg.Beams),
	}
	for i := 1; i < cfg.Beams; i++ {
		b.scores[i] = -1e9
	}
	for i := range b.seqs {
		b.seqs[i] = make([]int32, 0, cfg.MaxNewTokens)
		b.spare[i] = make([]int32, 0, cfg.MaxNewTokens)
	}
	return b, nil
}

// Generated returns the number of tokens each live beam holds (the step
// count).
func (b *BeamSearch) Generated() int { return b.cur }

// Done reports whether the search is over.
func (b *BeamSearch) Done() bool { return b.done }

// Beam returns the generated tokens of live beam i, owned by b and valid
// until the next Step.
func (b *BeamSearch) Beam(i int) []int32 { return b.seqs[i] }

// StepLogits is Step on raw logits: the same search on LogSoftmax of each
// row (logits are not modified), with the same tokens, parents, scores and
// errors, without writing the log-probabilities out. Each row's max and
// log-sum-exp are computed once (logSumExp, bit for bit LogSoftmax's), and
// the top candidates are taken from (x−m)−ls, rounded as LogSoftmax rounds
// it, so that every candidate score equals Step's on the LogSoftmax rows.
// Wide rows (GPT-J's 50400) are split over GOMAXPROCS goroutines (the
// caller's one of them), each taking a run of beams.
func (b *BeamSearch) StepLogits(logits [][]float32) (tokens []int32, parents []int, done bool, err error) {
	return b.step(logits, true)
}

// Step advances the search by one token. logProbs holds one row of
// log-probabilities (log_softmax of the last-position logits) per live
// beam, all of the same vocabulary width; at the first step a single row
// may stand for all beams (they share the prompt, as HF's replicated
// prefill does). Rows are not modified.
//
// It returns, for each live beam i of the next step, the token it appends
// (tokens[i]) and the index of the beam it continues (parents[i]): the
// decode loop reorders its cache so that new beam i holds the cache of old
// beam parents[i] and feeds tokens[i]. done true means the search is over
// (tokens and parents are then still the HF step's, but need not be run);
// call Finalize. The returned slices are owned by b and valid until the
// next Step.
func (b *BeamSearch) Step(logProbs [][]float32) (tokens []int32, parents []int, done bool, err error) {
	return b.step(logProbs, false)
}

// wideRow is the vocabulary width from which the beams' rows are scanned
// in parallel.
const wideRow = 1 << 14

// beamTop is one beam's share of a step: its top 2×Beams candidates (in
// candidate order) and the first NaN log-probability of its row (-1: none).
type beamTop struct {
	cand []candidate
	nan  int
}

func (b *BeamSearch) step(rows [][]float32, raw bool) (tokens []int32, parents []int, done bool, err error) {
	B := b.cfg.Beams
	if b.done {
		return nil, nil, true, fmt.Errorf("%w: beam search: Step after the search ended", ErrBadInput)
	}
	shared := len(rows) == 1 && b.cur == 0 && B > 1
	if len(rows) != B && !shared {
		return nil, nil, false, fmt.Errorf("%w: beam search: %d log-prob rows for %d beams", ErrBadInput, len(rows), B)
	}
	V := len(rows[0])
	if V < 2 {
		return nil, nil, false, fmt.Errorf("%w: beam search: vocabulary width %d, need at least 2", ErrBadInput, V)
	}
	for i, r := range rows {
		if len(r) != V {
			return nil, nil, false, fmt.Errorf("%w: beam search: row %d has width %d, row 0 has %d", ErrBadInput, i, len(r), V)
		}
	}
	eos := -1
	if b.cfg.EOS >= 0 && int(b.cfg.EOS) < V {
		eos = int(b.cfg.EOS)
	}
	mask := -1 // token read as -Inf
	if eos >= 0 && b.cur < b.cfg.MinNewTokens {
		mask = eos
	}

	// Top 2B of (row + running score), ties to the lower flat index: the
	// top 2B of each beam, then of their union in beam order (a candidate
	// outside its own beam's top 2B is outside the overall top 2B).
	K := 2 * B
	if len(b.tops) < B {
		b.tops = make([]beamTop, B)
		for i := range b.tops {
			b.tops[i].cand = make([]candidate, 0, K)
		}
	}
	if !raw && slices.Contains(b.scores, float32(math.Inf(-1))) {
		// A +Inf log-probability would score NaN on this beam, and NaN
		// scores are not ordered: take the plain single pass over all
		// rows instead of merging per-beam tops.
		c, beam, t := topSinglePass(b.cand[:0], rows, b.scores, K, mask)
		b.cand = c
		if beam >= 0 {
			return nil, nil, false, fmt.Errorf("%w: beam search: NaN log-probability at beam %d token %d", ErrBadInput, beam, t)
		}
		return b.walk(c, V, eos)
	}
	if raw && shared {
		// one normalisation for the B scans of the shared row
		m, ls := logSumExp(rows[0])
		for beam := range B {
			b.tops[beam] = topOfRow(b.tops[beam].cand, rows[0], beam, K, b.scores[beam], mask, true, m, ls)
		}
	} else {
		one := func(beam int) {
			row := rows[0]
			if !shared {
				row = rows[beam]
			}
			var m, ls float32
			if raw {
				m, ls = logSumExp(row)
			}
			b.tops[beam] = topOfRow(b.tops[beam].cand, row, beam, K, b.scores[beam], mask, raw, m, ls)
		}
		if w := min(B, runtime.GOMAXPROCS(0)); w > 1 && V >= wideRow && !shared {
			// w workers, the caller one of them, each a run of beams
			var wg sync.WaitGroup
			for k := 1; k < w; k++ {
				wg.Go(func() {
					for beam := k * B / w; beam < (k+1)*B/w; beam++ {
						one(beam)
					}
				})
			}
			for beam := range B / w {
				one(beam)
			}
			wg.Wait()
		} else {
			for beam := range B {
				one(beam)
			}
		}
	}
	c := b.cand[:0]
	for beam := range B {
		t := &b.tops[beam]
		if t.nan >= 0 {
			return nil, nil, false, fmt.Errorf("%w: beam search: NaN log-probability at beam %d token %d", ErrBadInput, beam, t.nan)
		}
		for _, cd := range t.cand {
			if len(c) == K && !(cd.score > c[K-1].score) {
				break // the beam's list is best first
			}
			c = insert(c, K, cd)
		}
	}
	b.cand = c
	return b.walk(c, V, eos)
}

// topSinglePass is the top k candidates of the log-probability rows (one
// row standing for all beams when there are fewer rows than scores) in one
// pass in flat order, and the first NaN (beam -1: none).
func topSinglePass(c []candidate, rows [][]float32, scores []float32, k, mask int) (top []candidate, nanBeam, nanTok int) {
	V := len(rows[0])
	for beam, bs := range scores {
		row := rows[min(beam, len(rows)-1)]
		for t, v := range row {
			if v != v {
				return c, beam, t
			}
			if t == mask {
				v = float32(math.Inf(-1))
			}
			s := v + bs
			if len(c) == k && !(s > c[k-1].score) {
				continue
			}
			c = insert(c, k, candidate{score: s, idx: beam*V + t})
		}
	}
	return c, -1, 0
}

// walk is the rest of a step once the top candidates c are known.
func (b *BeamSearch) walk(c []candidate, V, eos int) (tokens []int32, parents []int, done bool, err error) {
	B := b.cfg.Beams
	K := 2 * B
	// Walk the candidates (BeamSearchScorer.process).
	filled := 0
	for rank, cd := range c {
		beam, tok := cd.idx/V, cd.idx%V
		if tok == eos {
			if rank >= B {
				continue
			}
			var n int
			if b.cfg.LengthMode == LengthWithPrompt {
				n = b.cfg.PromptLen + b.cur
			} else {
				n = b.cur + 1
			}
			b.add(b.seqs[beam], float64(cd.score), n)
		} else {
			b.next[filled] = cd.score
			b.tokens[filled] = int32(tok)
			b.parents[filled] = beam
			filled++
		}
		if filled == B {
			break
		}
	}
	if filled < B {
		return nil, nil, false, fmt.Errorf("%w: beam search: only %d of %d beams could be filled from %d candidates (vocabulary too small for the beam count)", ErrBadInput, filled, B, K)
	}
	// is_done
	if len(b.hyps) >= B {
		if b.cfg.EarlyStopping {
			b.scorer = true
		} else {
			n := b.cur + 1
			if b.cfg.LengthMode == LengthWithPrompt {
				n = b.cfg.PromptLen + b.cur
			}
			best := float64(c[0].score) / math.Pow(float64(n), b.cfg.LengthPenalty)
			b.scorer = b.worst >= best
		}
	}
	// Reorder the live beams and append the new tokens.
	for i := range B {
		src := b.seqs[b.parents[i]]
		b.spare[i] = append(append(b.spare[i][:0], src...), b.tokens[i])
	}
	b.seqs, b.spare = b.spare, b.seqs
	copy(b.scores, b.next)
	b.cur++
	b.done = b.scorer || b.cur >= b.cfg.MaxNewTokens
	return b.tokens, b.parents, b.done, nil
}

// insert puts cd into c (at most k candidates, best first) after every
// candidate scoring at least as much, dropping the last when c is full;
// the caller has checked that cd belongs in c.
func insert(c []candidate, k int, cd candidate) []candidate {
	j := len(c)
	if j < k {
		c = append(c, candidate{})
	} else {
		j = k - 1
	}
	for j > 0 && c[j-1].score < cd.score {
		c[j] = c[j-1]
		j--
	}
	c[j] = cd
	return c
}

// topOfRow returns the top k candidates (c's memory reused) of beam's row
// scored s = y + bs, y the log-probability of the token: the value itself,
// or with norm (x−m)−ls rounded to float32 as LogSoftmax computes it; the
// token mask (if not -1) reads as y = -Inf. Ties go to the lower token. The
// first NaN y stops the scan and is reported (nan -1: none).
//
// The score is a non-decreasing function of the row value x (every
// rounding is monotonic), so once c is full, an x no larger than the x of
// c's last candidate cannot score above it and is skipped unscored.
func topOfRow(c []candidate, row []float32, beam, k int, bs float32, mask int, norm bool, m, ls float32) beamTop {
	c = c[:0]
	V := len(row)
	negInf := float32(math.Inf(-1))
	if norm && ls != ls {
		// m or the sum is NaN or infinite: every log-probability is NaN
		return beamTop{cand: c, nan: 0}
	}
	y := func(t int, x float32) float32 {
		if t == mask {
			return negInf
		}
		if norm {
			return (x - m) - ls
		}
		return x
	}
	// the row value of c's last candidate (-Inf for the masked token)
	thr := negInf
	t := 0
	for ; t < V && len(c) < k; t++ {
		x := row[t]
		if x != x {
			return beamTop{cand: c, nan: t}
		}
		cx := x
		if t == mask {
			cx = negInf
		}
		c = insert(c, k, candidate{score: y(t, x) + bs, idx: beam*V + t, x: cx})
	}
	if len(c) == k {
		thr = c[k-1].x
	}
	for ; t < V; t++ {
		x := row[t]
		if x <= thr {
			continue
		}
		if x != x {
			return beamTop{cand: c, nan: t}
		}
		s := y(t, x) + bs
		if !(s > c[k-1].score) {
			continue
		}
		c = insert(c, k, candidate{score: s, idx: beam*V + t, x: x})
		thr = c[k-1].x
	}
	return beamTop{cand: c, nan: -1}
}

// add is BeamHypotheses.add.
func (b *BeamSearch) add(seq []int32, sum float64, length int) {
	score := sum / math.Pow(float64(length), b.cfg.LengthPenalty)
	if len(b.hyps) < b.cfg.Beams || score > b.worst {
		b.hyps = append(b.hyps, Hypothesis{Tokens: slices.Clone(seq), Score: score})
		if len(b.hyps) > b.cfg.Beams {
			// delete the lowest score (earliest on ties); the new worst is
			// the lowest of the rest
			lo := 0
			for i, h := range b.hyps {
				if h.Score < b.hyps[lo].Score {
					lo = i
				}
			}
			b.hyps = slices.Delete(b.hyps, lo, lo+1)
			b.worst = b.hyps[0].Score
			for _, h := range b.hyps[1:] {
				b.worst = min(b.worst, h.Score)
			}
		} else {
			b.worst = min(score, b.worst)
		}
	}
}

// Finalize ends a search that is Done and returns the NumReturn best
// hypotheses, best first (BeamSearchScorer.finalize). Unless the finished
// hypotheses ended the search, the live beams are added as hypotheses
// first. Each returned sequence shorter than the longest returned one + 1
// (capped at the maximum length) gets one EOS appended, which for one
// returned sequence means: an EOS-finished hypothesis gets its EOS back.
// The returned token slices are owned by the caller.
func (b *BeamSearch) Finalize() ([]Hypothesis, error) {
	if !b.done {
		return nil, fmt.Errorf("%w: beam search: Finalize before the search is done (step %d of %d)", ErrBadInput, b.cur, b.cfg.MaxNewTokens)
	}
	if !b.scorer {
		for i := range b.cfg.Beams {
			n := len(b.seqs[i])
			if b.cfg.LengthMode == LengthWithPrompt {
				n += b.cfg.PromptLen
			}
			b.add(b.seqs[i], float64(b.scores[i]), n)
		}
		b.scorer = true
	}
	sorted := slices.Clone(b.hyps)
	slices.SortStableFunc(sorted, func(x, y Hypothesis) int {
		switch {
		case x.Score < y.Score:
			return -1
		case x.Score > y.Score:
			return 1
		}
		return 0
	})
	out := make([]Hypothesis, 0, b.cfg.NumReturn)
	for range b.cfg.NumReturn {
		if len(sorted) == 0 {
			break
		}
		h := sorted[len(sorted)-1]
		sorted = sorted[:len(sorted)-1]
		out = append(out, Hypothesis{Tokens: slices.Clone(h.Tokens), Score: h.Score})
	}
	maxLen := 0
	for _, h := range out {
		maxLen = max(maxLen, len(h.Tokens))
	}
	sentMax := min(b.cfg.PromptLen+maxLen+1, b.cfg.PromptLen+b.cfg.MaxNewTokens)
	if b.cfg.EOS >= 0 {
		for i := range out {
			if b.cfg.PromptLen+len(out[i].Tokens) < sentMax {
				out[i].Tokens = append(out[i].Tokens, b.cfg.EOS)
			}
		}
	}
	return out, nil
}
