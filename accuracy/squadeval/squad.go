package squadeval

import (
	"fmt"
	"io"
	"strings"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/datasets/squad/pytext"
)

// The BERT variants the submission checker scores: bert-99 must reach 99%
// of the fp32 reference's F1, bert-99.9 99.9%.
const (
	BERT99  = "bert-99"
	BERT999 = "bert-99.9"
)

// BERTTarget returns the F1 a variant (BERT99 or BERT999) must reach, from
// accuracy.Targets (90.874 × 0.99 = 89.96526, 90.874 × 0.999 = 90.783126,
// rounded as the checker's Python rounds them).
func BERTTarget(variant string) float64 {
	f, _ := accuracy.MinTarget(variant, "F1")
	return f
}

// Result is the outcome of the official SQuAD v1.1 evaluation.
type Result struct {
	ExactMatch float64 // percent
	F1         float64 // percent
	Total      int     // questions in the data set
	// Unanswered lists the ids of questions with no prediction; each scored
	// 0 (the reference prints "Unanswered question ... will receive score
	// 0." for each).
	Unanswered []string
}

// String prints the result as evaluate_v1.1.py's json.dumps does, for
// example {"exact_match": 83.68022705771051, "f1": 90.8790560393552}; the
// submission checker parses the F1 from this line.
func (r Result) String() string {
	return fmt.Sprintf(`{"exact_match": %s, "f1": %s}`, pytext.FloatRepr(r.ExactMatch), pytext.FloatRepr(r.F1))
}

// Pass reports whether the F1 reaches BERTTarget(variant).
func (r Result) Pass(variant string) bool {
	return r.F1 >= BERTTarget(variant)
}

// WriteReport writes the score line, the unanswered-question notes and the
// bert-99 / bert-99.9 verdicts.
func (r Result) WriteReport(w io.Writer) error {
	var b strings.Builder
	for _, id := range r.Unanswered {
		fmt.Fprintf(&b, "Unanswered question %s will receive score 0.\n", id)
	}
	b.WriteString(r.String())
	b.WriteByte('\n')
	for _, v := range []string{BERT99, BERT999} {
		verdict := "FAIL"
		if r.Pass(v) {
			verdict = "PASS"
		}
		fmt.Fprintf(&b, "%s: F1 %s >= %s: %s\n", v, pytext.FloatRepr(r.F1), pytext.FloatRepr(BERTTarget(v)), verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Score is evaluate() of the official SQuAD v1.1 script: for every
// question of ds in file order, the best exact match and F1 over its
// ground-truth answers; the means over all questions, × 100. Questions
// without a prediction score 0. A question with no ground-truth answer is an
// error (the reference script crashes on it).
func Score(ds *squad.Dataset, predictions map[string]string) (Result, error) {
	var res Result
	var em int
	var f1 float64
	for _, a := range ds.Data {
		for _, p := range a.Paragraphs {
			for _, qa := range p.QAs {
				res.Total++
				pred, ok := predictions[qa.ID]
				if !ok {
					res.Unanswered = append(res.Unanswered, qa.ID)
					continue
				}
				if len(qa.Answers) == 0 {
					return Result{}, fmt.Errorf("accuracy: squad: question %q has no ground-truth answer to score against", qa.ID)
				}
				normPred := Normalize(pred)
				predToks := pytext.Fields(normPred)
				bestEM, bestF1 := false, 0.0
				for i, gt := range qa.Answers {
					normGT := Normalize(gt.Text)
					if normPred == normGT {
						bestEM = true
					}
					s := f1Tokens(predToks, pytext.Fields(normGT))
					if i == 0 || s > bestF1 {
						bestF1 = s
					}
				}
				if bestEM {
					em++
				}
				f1 += bestF1
			}
		}
	}
	if res.Total == 0 {
		return Result{}, fmt.Errorf("accuracy: squad: the data set has no questions")
	}
	res.ExactMatch = 100.0 * float64(em) / float64(res.Total)
	res.F1 = 100.0 * f1 / float64(res.Total)
	return res, nil
}

// Normalize is normalize_answer of the official script: Python
// lower-casing, removal of ASCII punctuation (string.punctuation), the
// words a, an and the (with Python's Unicode word boundaries) replaced by a
// space, and whitespace runs collapsed.
func Normalize(s string) string {
	s = pytext.Lower(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x80 && isASCIIPunct(byte(r)) {
			continue
		}
		b.WriteRune(r)
	}
	return pytext.JoinFields(removeArticles(b.String()))
}

func isASCIIPunct(c byte) bool {
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}

// removeArticles is re.sub(r"\b(a|an|the)\b", " ", s): every maximal run of
// word characters equal to an article becomes a space.
func removeArticles(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := -1 // start of the current word run
	flush := func(end int) {
		w := s[start:end]
		if w == "a" || w == "an" || w == "the" {
			b.WriteByte(' ')
		} else {
			b.WriteString(w)
		}
	}
	for i, r := range s {
		if pytext.IsWordChar(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			flush(i)
			start = -1
		}
		b.WriteRune(r)
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}

// ExactMatch is exact_match_score: the normalized strings are equal.
func ExactMatch(prediction, groundTruth string) bool {
	return Normalize(prediction) == Normalize(groundTruth)
}

// F1 is f1_score: the harmonic mean of token precision and recall of
// the normalized strings, counting common tokens with multiplicity.
func F1(prediction, groundTruth string) float64 {
	return f1Tokens(pytext.Fields(Normalize(prediction)), pytext.Fields(Normalize(groundTruth)))
}

func f1Tokens(pred, gt []string) float64 {
	if len(pred) == 0 || len(gt) == 0 {
		return 0
	}
	counts := make(map[string]int, len(gt))
	for _, t := range gt {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := 1.0 * float64(same) / float64(len(pred))
	recall := 1.0 * float64(same) / float64(len(gt))
	return (2 * precision * recall) / (precision + recall)
}
