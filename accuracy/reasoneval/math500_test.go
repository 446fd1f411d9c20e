package reasoneval

import (
	"testing"

	"github.com/mlperf-go/inference/accuracy/boxed"

	"github.com/mlperf-go/inference/internal/goldentest"
)

// math500Case is one recorded MATH-500 output with what each reference
// made of it: parse_boxed_math's answer (nil for None) and whether
// evaluate_math500 (prm800k's grade_answer) counted it correct.
type math500Case struct {
	Text      string  `json:"text"`
	Truth     string  `json:"truth"`
	R1        *string `json:"r1"`
	R1OK      bool    `json:"r1_ok"`
	Harmony   *string `json:"harmony"`
	HarmonyOK bool    `json:"harmony_ok"`
}

// TestMath500RecordedOutputsScoreAsTheReferences scores 453 whole
// recorded MATH-500 outputs (testdata/math500_golden.json.gz, written by
// testdata/make_goldens.py math500 with sympy 1.14) through both
// benchmarks' math500 path and holds each verdict to the reference
// evaluator's: real MATH-500 ground truths answered in the forms a grader
// must accept (\dfrac, a/b, mixed numbers, decimals, degrees and units,
// thousands commas, reordered sums, equivalent radicals, intervals,
// tuples, matrices) and refuse (near misses, wrong values), in outputs
// whose box is final, replaced by a later one, only in Harmony's analysis,
// unclosed, empty or missing.
func TestMath500RecordedOutputsScoreAsTheReferences(t *testing.T) {
	var g struct {
		Version string        `json:"sympy_version"`
		Cases   []math500Case `json:"cases"`
	}
	goldentest.ReadJSON(t, "testdata/math500_golden.json.gz", &g)
	if len(g.Cases) < 200 {
		t.Fatalf("only %d recorded outputs", len(g.Cases))
	}
	correct, parsed, bad := 0, 0, 0
	for _, c := range g.Cases {
		p, ok := boxed.Boxed(c.Text)
		if ok != (c.R1 != nil) || ok && p != *c.R1 {
			t.Errorf("parse_boxed_math(%q) = %q %v, reference %v", c.Text, p, ok, deref(c.R1))
		}
		if ok {
			parsed++
		}
		for _, f := range []struct {
			name string
			fl   flavour
			want bool
		}{{"deepseek-r1", deepseek, c.R1OK}, {"gpt-oss-120b", gptoss, c.HarmonyOK}} {
			if got := score(f.fl, "math500", c.Text, Row{Dataset: "math500", GroundTruth: c.Truth}); got != f.want {
				bad++
				t.Errorf("%s: answer %q for %q: correct %v, reference (sympy %s) %v\n%s", f.name, deref(c.R1), c.Truth, got, g.Version, f.want, c.Text)
			}
		}
		if c.R1OK {
			correct++
		}
	}
	if correct == 0 || correct == len(g.Cases) || parsed == len(g.Cases) {
		t.Fatalf("%d outputs, %d parsed, %d correct: the set must hold right, wrong and unparsed ones", len(g.Cases), parsed, correct)
	}
	t.Logf("%d recorded outputs (%d boxed answers, %d correct): %d verdicts differ", len(g.Cases), parsed, correct, bad)
}

func deref(s *string) string {
	if s == nil {
		return "<None>"
	}
	return *s
}
