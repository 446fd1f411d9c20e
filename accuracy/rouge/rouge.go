package rouge

import (
	"fmt"
	"math/bits"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mlperf-go/inference/internal/pynum"
)

// Score is one ROUGE measurement of rouge_score: precision, recall
// and F-measure of a prediction against a target.
type Score struct{ Precision, Recall, F float64 }

// Scores are the four ROUGE types the MLPerf evaluators compute.
type Scores struct{ Rouge1, Rouge2, RougeL, RougeLsum Score }

// Tokenize is rouge_score's default tokenizer: Python's lower(), every
// run of characters outside [a-z0-9] becomes a space, split on spaces,
// tokens longer than 3 characters stemmed with PorterStem when stem is
// set, empty tokens dropped.
func Tokenize(text string, stem bool) []string {
	return rougeTokenize(nil, text, stem, nil)
}

// rougeTokenize appends the tokens of text to toks; cache, when not nil,
// memoises stems.
func rougeTokenize(toks []string, text string, stem bool, cache map[string]string) []string {
	var buf [64]byte
	b := buf[:0]
	flush := func() {
		if len(b) == 0 {
			return
		}
		var t string
		if stem && len(b) > 3 {
			if cache != nil {
				if st, ok := cache[string(b)]; ok {
					t = st
				} else {
					w := string(b)
					t = PorterStem(w)
					if len(cache) < 1<<20 {
						cache[w] = t
					}
				}
			} else {
				t = PorterStem(string(b))
			}
		} else {
			t = string(b)
		}
		if t != "" {
			toks = append(toks, t)
		}
		b = b[:0]
	}
	for _, r := range text {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b = append(b, byte(r))
		case r >= 'A' && r <= 'Z':
			b = append(b, byte(r-'A'+'a'))
		case r == 0x130: // İ lowers to "i" + U+0307
			b = append(b, 'i')
			flush()
		case r == 0x212A: // Kelvin sign lowers to "k"
			b = append(b, 'k')
		default:
			flush()
		}
	}
	flush()
	return toks
}

// Scorer computes rouge1, rouge2, rougeL and rougeLsum as
// rouge_score.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"],
// use_stemmer=...) does, rougeLsum over "\n"-separated sentences. Safe
// for concurrent use.
type Scorer struct {
	stem bool
}

// NewScorer returns a scorer; useStemmer matches rouge_score's
// use_stemmer (true in the MLPerf evaluators).
func NewScorer(useStemmer bool) *Scorer {
	return &Scorer{stem: useStemmer}
}

// rougeWork is the scratch memory of one goroutine's scoring.
type rougeWork struct {
	stem    bool
	stems   map[string]string
	ids     map[string]int32
	toks    []string
	lcs     []int32
	mark    []bool
	pos     map[int32]int32
	masks   []uint64
	vbits   []uint64
	grams   map[uint64]int32
	counts  map[int32]int32
	ccounts map[int32]int32
}

func newRougeWork(stem bool) *rougeWork {
	return &rougeWork{stem: stem, stems: map[string]string{}, ids: map[string]int32{}, grams: map[uint64]int32{}, counts: map[int32]int32{}, ccounts: map[int32]int32{}}
}

// sentences tokenizes each non-empty "\n"-separated line of text into
// interned ids. The concatenation of the lines' tokens is the tokens of the
// whole text, since "\n" is a separator for the tokenizer.
func (w *rougeWork) sentences(text string) (all []int32, sents [][]int32) {
	for _, l := range strings.Split(text, "\n") {
		if l == "" {
			continue
		}
		w.toks = rougeTokenize(w.toks[:0], l, w.stem, w.stems)
		start := len(all)
		for _, t := range w.toks {
			id, ok := w.ids[t]
			if !ok {
				id = int32(len(w.ids))
				w.ids[t] = id
			}
			all = append(all, id)
		}
		sents = append(sents, all[start:len(all):len(all)])
	}
	return all, sents
}

// Score returns the scores of prediction against target, the argument
// order of rouge_score's score(target, prediction).
func (s *Scorer) Score(target, prediction string) Scores {
	return newRougeWork(s.stem).score(target, prediction)
}

func (w *rougeWork) score(target, prediction string) Scores {
	if len(w.ids) > 1<<20 {
		clear(w.ids)
	}
	tt, ts := w.sentences(target)
	pt, ps := w.sentences(prediction)
	var r Scores
	r.Rouge1 = w.ngrams(tt, pt, 1)
	r.Rouge2 = w.ngrams(tt, pt, 2)
	r.RougeL = w.lcsScore(tt, pt)
	r.RougeLsum = w.summaryLCS(ts, ps)
	return r
}

// rougeF is rouge_score's scoring.fmeasure.
func rougeF(p, r float64) float64 {
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

// ngrams is _score_ngrams over _create_ngrams for n = 1 or 2 (n-grams
// keyed by their token ids).
func (w *rougeWork) ngrams(t, p []int32, n int) Score {
	key := func(toks []int32, i int) uint64 {
		if n == 1 {
			return uint64(uint32(toks[i]))
		}
		return uint64(uint32(toks[i]))<<32 | uint64(uint32(toks[i+1]))
	}
	g := w.grams
	clear(g)
	tn, pn, inter := 0, 0, 0
	for i := 0; i+n <= len(t); i++ {
		g[key(t, i)]++
		tn++
	}
	// consume target counts with prediction n-grams: Σ min(target, pred)
	for i := 0; i+n <= len(p); i++ {
		k := key(p, i)
		if c := g[k]; c > 0 {
			g[k] = c - 1
			inter++
		}
		pn++
	}
	prec := float64(inter) / float64(max(pn, 1))
	rec := float64(inter) / float64(max(tn, 1))
	return Score{prec, rec, rougeF(prec, rec)}
}

// rougeLCSTable fills the (len(a)+1)×(len(b)+1) LCS table into buf.
func rougeLCSTable(a, b []int32, buf []int32) []int32 {
	w := len(b) + 1
	need := (len(a) + 1) * w
	if cap(buf) < need {
		buf = make([]int32, need)
	}
	buf = buf[:need]
	clear(buf[:w])
	for i := 1; i <= len(a); i++ {
		row, prev := buf[i*w:(i+1)*w], buf[(i-1)*w:i*w]
		row[0] = 0
		ai := a[i-1]
		for j := 1; j <= len(b); j++ {
			if ai == b[j-1] {
				row[j] = prev[j-1] + 1
			} else {
				row[j] = max(prev[j], row[j-1])
			}
		}
	}
	return buf
}

func (w *rougeWork) lcsScore(t, p []int32) Score {
	if len(t) == 0 || len(p) == 0 {
		return Score{}
	}
	l := float64(w.lcsLength(t, p))
	prec := l / float64(len(p))
	rec := l / float64(len(t))
	return Score{prec, rec, rougeF(prec, rec)}
}

// lcsLength returns the length of the longest common subsequence of t and
// p with the bit-parallel algorithm of Allison–Dix / Hyyrö (one bit per
// position of p; V ← (V + (V∧M)) ∨ (V∧¬M) per token of t; the length is the
// number of cleared bits). It equals the last cell of rougeLCSTable.
func (w *rougeWork) lcsLength(t, p []int32) int {
	nw := (len(p) + 63) / 64
	if w.pos == nil {
		w.pos = map[int32]int32{}
	}
	clear(w.pos)
	w.masks = w.masks[:0]
	for j, id := range p {
		k, ok := w.pos[id]
		if !ok {
			k = int32(len(w.masks) / nw)
			w.pos[id] = k
			for range nw {
				w.masks = append(w.masks, 0)
			}
		}
		w.masks[int(k)*nw+j/64] |= 1 << (j % 64)
	}
	if cap(w.vbits) < nw {
		w.vbits = make([]uint64, nw)
	}
	v := w.vbits[:nw]
	for i := range v {
		v[i] = ^uint64(0)
	}
	for _, id := range t {
		k, ok := w.pos[id]
		if !ok {
			continue
		}
		m := w.masks[int(k)*nw : int(k)*nw+nw]
		var carry uint64
		for i := range v {
			u := v[i] & m[i]
			sum, c := bits.Add64(v[i], u, carry)
			carry = c
			v[i] = sum | (v[i] &^ m[i])
		}
	}
	zeros := 0
	for i, x := range v {
		valid := 64
		if i == nw-1 && len(p)%64 != 0 {
			valid = len(p) % 64
		}
		mask := ^uint64(0)
		if valid < 64 {
			mask = 1<<valid - 1
		}
		zeros += valid - bits.OnesCount64(x&mask)
	}
	return zeros
}

// rougeSummaryLCS is rouge_score's _summary_level_lcs (union LCS with the
// ROUGE-1.5.5 guard against double counting).
func (w *rougeWork) summaryLCS(ref, can [][]int32) Score {
	if len(ref) == 0 || len(can) == 0 {
		return Score{}
	}
	m, n := 0, 0
	for _, s := range ref {
		m += len(s)
	}
	for _, s := range can {
		n += len(s)
	}
	if m == 0 || n == 0 {
		return Score{}
	}
	// token counts of reference (cr) and candidate (cc), to prevent
	// double counting
	cr, cc := w.counts, w.ccounts
	clear(cr)
	clear(cc)
	for _, s := range ref {
		for _, t := range s {
			cr[t]++
		}
	}
	for _, s := range can {
		for _, t := range s {
			cc[t]++
		}
	}
	hits := 0
	buf := w.lcs
	mark := w.mark
	for _, r := range ref {
		if cap(mark) < len(r) {
			mark = make([]bool, len(r))
		}
		mark = mark[:len(r)]
		clear(mark)
		for _, c := range can {
			buf = rougeLCSTable(r, c, buf)
			// _backtrack_norec: indexes into r of one LCS
			w := len(c) + 1
			i, j := len(r), len(c)
			for i > 0 && j > 0 {
				switch {
				case r[i-1] == c[j-1]:
					mark[i-1] = true
					i--
					j--
				case buf[i*w+j-1] > buf[(i-1)*w+j]:
					j--
				default:
					i--
				}
			}
		}
		for i, ok := range mark {
			if !ok {
				continue
			}
			t := r[i]
			if cc[t] > 0 && cr[t] > 0 {
				hits++
				cc[t]--
				cr[t]--
			}
		}
	}
	w.lcs, w.mark = buf, mark
	rec := float64(hits) / float64(m)
	prec := float64(hits) / float64(n)
	return Score{prec, rec, rougeF(prec, rec)}
}

// Postprocess is the evaluators' postprocess_text for one string:
// strip() (Python whitespace), split with SentTokenize, join with "\n".
func Postprocess(s string) string {
	s = strings.TrimFunc(s, rougePyIsSpace)
	return strings.Join(SentTokenize(s), "\n")
}

// Result is what the GPT-J and Llama 2 evaluators report.
type Result struct {
	// Rouge1, Rouge2, RougeL, RougeLsum: round(mean(F)×100, 4), with
	// numpy's mean (pairwise summation) and round (scale, rint, unscale).
	Rouge1, Rouge2, RougeL, RougeLsum float64
	GenLen                            int // Σ characters of the postprocessed predictions
	GenNum                            int // number of predictions
	// GenTokLen is Σ generated token counts and TokensPerSample its mean
	// rounded to 1 place (Llama 2 only; set by the caller's token counts).
	GenTokLen       int
	TokensPerSample float64
	// Per-sample F-measures in input order (rouge1, rouge2, rougeL,
	// rougeLsum).
	PerSample []Scores
}

// Evaluate postprocesses predictions and targets, scores each pair
// with use_stemmer=True and aggregates as the MLPerf GPT-J evaluation.py
// and Llama 2 evaluate-accuracy.py do. tokenCounts, when not nil, gives
// each prediction's generated token count for gen_tok_len and
// tokens_per_sample. Work is spread over GOMAXPROCS goroutines.
func Evaluate(predictions, targets []string, tokenCounts []int) (Result, error) {
	if len(predictions) != len(targets) {
		return Result{}, fmt.Errorf("accuracy: rouge: %d predictions for %d targets", len(predictions), len(targets))
	}
	if tokenCounts != nil && len(tokenCounts) != len(predictions) {
		return Result{}, fmt.Errorf("accuracy: rouge: %d token counts for %d predictions", len(tokenCounts), len(predictions))
	}
	if len(predictions) == 0 {
		return Result{}, fmt.Errorf("accuracy: rouge: no predictions")
	}
	n := len(predictions)
	res := Result{GenNum: n, PerSample: make([]Scores, n)}
	lens := make([]int, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			w := newRougeWork(true)
			for i := k; i < n; i += workers {
				p := Postprocess(predictions[i])
				t := Postprocess(targets[i])
				lens[i] = utf8.RuneCountInString(p)
				res.PerSample[i] = w.score(t, p)
			}
		})
	}
	wg.Wait()
	col := make([]float64, n)
	mean := func(f func(Scores) float64) float64 {
		for i, s := range res.PerSample {
			col[i] = f(s)
		}
		return pynum.Round(pynum.Sum(col)/float64(n)*100, 4)
	}
	res.Rouge1 = mean(func(s Scores) float64 { return s.Rouge1.F })
	res.Rouge2 = mean(func(s Scores) float64 { return s.Rouge2.F })
	res.RougeL = mean(func(s Scores) float64 { return s.RougeL.F })
	res.RougeLsum = mean(func(s Scores) float64 { return s.RougeLsum.F })
	for _, l := range lens {
		res.GenLen += l
	}
	if tokenCounts != nil {
		for _, c := range tokenCounts {
			res.GenTokLen += c
		}
		res.TokensPerSample = pynum.Round1(float64(res.GenTokLen) / float64(n))
	}
	return res, nil
}

// GPTJString prints the result as MLCommons language/gpt-j/evaluation.py
// prints its dict: metrics as quoted strings of round(mean×100, 4),
// gen_len and gen_num as integers.
func (r Result) GPTJString() string {
	return fmt.Sprintf("{'rouge1': '%s', 'rouge2': '%s', 'rougeL': '%s', 'rougeLsum': '%s', 'gen_len': %d, 'gen_num': %d}",
		pynum.FloatRepr(r.Rouge1), pynum.FloatRepr(r.Rouge2), pynum.FloatRepr(r.RougeL), pynum.FloatRepr(r.RougeLsum), r.GenLen, r.GenNum)
}

// Llama2String prints the result as MLCommons language/llama2-70b/
// evaluate-accuracy.py prints its dict.
func (r Result) Llama2String() string {
	return fmt.Sprintf("{'rouge1': %s, 'rouge2': %s, 'rougeL': %s, 'rougeLsum': %s, 'gen_len': %d, 'gen_num': %d, 'gen_tok_len': %d, 'tokens_per_sample': %s}",
		pynum.FloatRepr(r.Rouge1), pynum.FloatRepr(r.Rouge2), pynum.FloatRepr(r.RougeL), pynum.FloatRepr(r.RougeLsum), r.GenLen, r.GenNum, r.GenTokLen, pynum.FloatRepr(r.TokensPerSample))
}
