package accuracy

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// RougeScore is one ROUGE measurement of rouge_score: precision, recall
// and F-measure of a prediction against a target.
type RougeScore struct{ Precision, Recall, F float64 }

// RougeScores are the four ROUGE types the MLPerf evaluators compute.
type RougeScores struct{ Rouge1, Rouge2, RougeL, RougeLsum RougeScore }

// RougeTokenize is rouge_score's default tokenizer: Python's lower(), every
// run of characters outside [a-z0-9] becomes a space, split on spaces,
// tokens longer than 3 characters stemmed with PorterStem when stem is
// set, empty tokens dropped.
func RougeTokenize(text string, stem bool) []string {
	var toks []string
	var b []byte
	flush := func() {
		if len(b) == 0 {
			return
		}
		t := string(b)
		if stem && len(t) > 3 {
			t = PorterStem(t)
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

// RougeScorer computes rouge1, rouge2, rougeL and rougeLsum as
// rouge_score.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"],
// use_stemmer=...) does, rougeLsum over "\n"-separated sentences. Safe
// for concurrent use.
type RougeScorer struct {
	stem bool
}

// NewRougeScorer returns a scorer; useStemmer matches rouge_score's
// use_stemmer (true in the MLPerf evaluators).
func NewRougeScorer(useStemmer bool) *RougeScorer {
	return &RougeScorer{stem: useStemmer}
}

// rougeIDs interns tokens to small integers for the LCS tables.
type rougeIDs map[string]int32

func (d rougeIDs) of(toks []string) []int32 {
	out := make([]int32, len(toks))
	for i, t := range toks {
		id, ok := d[t]
		if !ok {
			id = int32(len(d))
			d[t] = id
		}
		out[i] = id
	}
	return out
}

// Score returns the scores of prediction against target, the argument
// order of rouge_score's score(target, prediction).
func (s *RougeScorer) Score(target, prediction string) RougeScores {
	ids := rougeIDs{}
	tt := ids.of(RougeTokenize(target, s.stem))
	pt := ids.of(RougeTokenize(prediction, s.stem))
	var r RougeScores
	r.Rouge1 = rougeNgrams(tt, pt, 1)
	r.Rouge2 = rougeNgrams(tt, pt, 2)
	r.RougeL = rougeLCS(tt, pt)
	var ts, ps [][]int32
	for _, l := range strings.Split(target, "\n") {
		if l != "" {
			ts = append(ts, ids.of(RougeTokenize(l, s.stem)))
		}
	}
	for _, l := range strings.Split(prediction, "\n") {
		if l != "" {
			ps = append(ps, ids.of(RougeTokenize(l, s.stem)))
		}
	}
	r.RougeLsum = rougeSummaryLCS(ts, ps)
	return r
}

// rougeF is rouge_score's scoring.fmeasure.
func rougeF(p, r float64) float64 {
	if p+r > 0 {
		return 2 * p * r / (p + r)
	}
	return 0
}

func rougeNgrams(t, p []int32, n int) RougeScore {
	count := func(toks []int32) map[string]int {
		m := map[string]int{}
		var key []byte
		for i := 0; i+n <= len(toks); i++ {
			key = key[:0]
			for _, v := range toks[i : i+n] {
				key = append(key, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
			}
			m[string(key)]++
		}
		return m
	}
	tc, pc := count(t), count(p)
	inter, tn, pn := 0, 0, 0
	for k, c := range tc {
		inter += min(c, pc[k])
		tn += c
	}
	for _, c := range pc {
		pn += c
	}
	prec := float64(inter) / float64(max(pn, 1))
	rec := float64(inter) / float64(max(tn, 1))
	return RougeScore{prec, rec, rougeF(prec, rec)}
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

func rougeLCS(t, p []int32) RougeScore {
	if len(t) == 0 || len(p) == 0 {
		return RougeScore{}
	}
	tab := rougeLCSTable(t, p, nil)
	l := float64(tab[len(tab)-1])
	prec := l / float64(len(p))
	rec := l / float64(len(t))
	return RougeScore{prec, rec, rougeF(prec, rec)}
}

// rougeSummaryLCS is rouge_score's _summary_level_lcs (union LCS with the
// ROUGE-1.5.5 guard against double counting).
func rougeSummaryLCS(ref, can [][]int32) RougeScore {
	if len(ref) == 0 || len(can) == 0 {
		return RougeScore{}
	}
	m, n := 0, 0
	cr, cc := map[int32]int{}, map[int32]int{}
	for _, s := range ref {
		m += len(s)
		for _, t := range s {
			cr[t]++
		}
	}
	for _, s := range can {
		n += len(s)
		for _, t := range s {
			cc[t]++
		}
	}
	if m == 0 || n == 0 {
		return RougeScore{}
	}
	hits := 0
	var buf []int32
	var mark []bool
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
	rec := float64(hits) / float64(m)
	prec := float64(hits) / float64(n)
	return RougeScore{prec, rec, rougeF(prec, rec)}
}

// RougePostprocess is the evaluators' postprocess_text for one string:
// strip() (Python whitespace), split with SentTokenize, join with "\n".
func RougePostprocess(s string) string {
	s = strings.TrimFunc(s, rougePyIsSpace)
	return strings.Join(SentTokenize(s), "\n")
}

// RougeResult is what the GPT-J and Llama 2 evaluators report.
type RougeResult struct {
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
	PerSample []RougeScores
}

// RougeEvaluate postprocesses predictions and targets, scores each pair
// with use_stemmer=True and aggregates as the MLPerf GPT-J evaluation.py
// and Llama 2 evaluate-accuracy.py do. tokenCounts, when not nil, gives
// each prediction's generated token count for gen_tok_len and
// tokens_per_sample. Work is spread over GOMAXPROCS goroutines.
func RougeEvaluate(predictions, targets []string, tokenCounts []int) (RougeResult, error) {
	if len(predictions) != len(targets) {
		return RougeResult{}, fmt.Errorf("accuracy: rouge: %d predictions for %d targets", len(predictions), len(targets))
	}
	if tokenCounts != nil && len(tokenCounts) != len(predictions) {
		return RougeResult{}, fmt.Errorf("accuracy: rouge: %d token counts for %d predictions", len(tokenCounts), len(predictions))
	}
	if len(predictions) == 0 {
		return RougeResult{}, fmt.Errorf("accuracy: rouge: no predictions")
	}
	n := len(predictions)
	res := RougeResult{GenNum: n, PerSample: make([]RougeScores, n)}
	lens := make([]int, n)
	sc := NewRougeScorer(true)
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				p := RougePostprocess(predictions[i])
				t := RougePostprocess(targets[i])
				lens[i] = len([]rune(p))
				res.PerSample[i] = sc.Score(t, p)
			}
		})
	}
	wg.Wait()
	col := make([]float64, n)
	mean := func(f func(RougeScores) float64) float64 {
		for i, s := range res.PerSample {
			col[i] = f(s)
		}
		return numpyRound(numpyPairwiseSum(col)/float64(n)*100, 4)
	}
	res.Rouge1 = mean(func(s RougeScores) float64 { return s.Rouge1.F })
	res.Rouge2 = mean(func(s RougeScores) float64 { return s.Rouge2.F })
	res.RougeL = mean(func(s RougeScores) float64 { return s.RougeL.F })
	res.RougeLsum = mean(func(s RougeScores) float64 { return s.RougeLsum.F })
	for _, l := range lens {
		res.GenLen += l
	}
	if tokenCounts != nil {
		for _, c := range tokenCounts {
			res.GenTokLen += c
		}
		res.TokensPerSample = pyRound1(float64(res.GenTokLen) / float64(n))
	}
	return res, nil
}

// numpyPairwiseSum is numpy's pairwise summation of float64 (the
// add.reduce that np.mean uses): blocks of up to 128 elements summed with
// eight accumulators, larger arrays split in halves rounded to a multiple
// of 8.
func numpyPairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := math.Copysign(0, -1) // numpy starts from -0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := range 8 {
				r[k] += a[i+k]
			}
		}
		s := (r[0] + r[1]) + (r[2] + r[3]) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return numpyPairwiseSum(a[:n2]) + numpyPairwiseSum(a[n2:])
	}
}

// numpyRound is np.round(x, decimals) for decimals >= 0: multiply by
// 10^decimals, round half to even, divide.
func numpyRound(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.RoundToEven(x*p) / p
}

// pyRound1 is Python's round(x, 1) on a float: correctly rounded to the
// nearest decimal with one digit (ties to even on the exact binary value).
func pyRound1(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 1, 64), 64)
	return v
}

// pyFloatRepr formats x as Python's repr(float) does for the magnitudes
// these metrics take (shortest round-trip digits, at least one decimal).
func pyFloatRepr(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		switch {
		case math.IsNaN(x):
			return "nan"
		case x > 0:
			return "inf"
		}
		return "-inf"
	}
	ax := math.Abs(x)
	if ax != 0 && (ax < 1e-4 || ax >= 1e16) {
		return strconv.FormatFloat(x, 'e', -1, 64) // 1e-05, 1e+16 as Python
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// GPTJString prints the result as MLCommons language/gpt-j/evaluation.py
// prints its dict: metrics as quoted strings of round(mean×100, 4),
// gen_len and gen_num as integers.
func (r RougeResult) GPTJString() string {
	return fmt.Sprintf("{'rouge1': '%s', 'rouge2': '%s', 'rougeL': '%s', 'rougeLsum': '%s', 'gen_len': %d, 'gen_num': %d}",
		pyFloatRepr(r.Rouge1), pyFloatRepr(r.Rouge2), pyFloatRepr(r.RougeL), pyFloatRepr(r.RougeLsum), r.GenLen, r.GenNum)
}

// Llama2String prints the result as MLCommons language/llama2-70b/
// evaluate-accuracy.py prints its dict.
func (r RougeResult) Llama2String() string {
	return fmt.Sprintf("{'rouge1': %s, 'rouge2': %s, 'rougeL': %s, 'rougeLsum': %s, 'gen_len': %d, 'gen_num': %d, 'gen_tok_len': %d, 'tokens_per_sample': %s}",
		pyFloatRepr(r.Rouge1), pyFloatRepr(r.Rouge2), pyFloatRepr(r.RougeL), pyFloatRepr(r.RougeLsum), r.GenLen, r.GenNum, r.GenTokLen, pyFloatRepr(r.TokensPerSample))
}
