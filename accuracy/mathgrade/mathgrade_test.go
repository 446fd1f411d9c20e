package mathgrade

import (
	"testing"

	"github.com/mlperf-go/inference/internal/goldentest"
)

type sympyCall struct {
	GT      string `json:"gt"`
	Given   string `json:"given"`
	Allowed bool   `json:"allowed"`
	Equal   bool   `json:"equal"`
}

type gradeCase struct {
	Given string      `json:"given"`
	Truth string      `json:"truth"`
	OK    bool        `json:"ok"`
	Mathd [2]*string  `json:"mathd"`
	Norm  [2]*string  `json:"norm"`
	Sympy []sympyCall `json:"sympy"`
}

func loadGolden(t *testing.T) (string, []gradeCase) {
	t.Helper()
	var g struct {
		Version string      `json:"sympy_version"`
		Cases   []gradeCase `json:"cases"`
	}
	goldentest.ReadJSON(t, "testdata/grade_golden.json", &g)
	return g.Version, g.Cases
}

func TestGradeMatchesPRM800K(t *testing.T) {
	version, cases := loadGolden(t)
	if len(cases) < 1000 {
		t.Fatalf("only %d cases", len(cases))
	}
	var normBad, gradeBad, sympyBad, sympyN int
	for _, c := range cases {
		for i, s := range []string{c.Given, c.Truth} {
			if got := NormalizeMathd(s); c.Mathd[i] == nil || got != *c.Mathd[i] {
				normBad++
				t.Errorf("normalize_answer(%q) = %q, want %q", s, got, deref(c.Mathd[i]))
			}
			if got := Normalize(s); c.Norm[i] == nil || got != *c.Norm[i] {
				normBad++
				t.Errorf("_normalize(%q) = %q, want %q", s, got, deref(c.Norm[i]))
			}
		}
		for _, s := range c.Sympy {
			sympyN++
			if got := allowEval("(" + s.GT + ")-(" + s.Given + ")"); got != s.Allowed {
				t.Errorf("should_allow_eval(%q, %q) = %v, want %v", s.GT, s.Given, got, s.Allowed)
			}
			if got := EqualUnderSympy(s.GT, s.Given); got != s.Equal {
				sympyBad++
				t.Errorf("sympy %s: (%s)-(%s) == 0: %v, want %v", version, s.GT, s.Given, got, s.Equal)
			}
		}
		if got := Grade(c.Given, c.Truth); got != c.OK {
			gradeBad++
			t.Errorf("grade_answer(%q, %q) = %v, want %v", c.Given, c.Truth, got, c.OK)
		}
	}
	t.Logf("%d pairs (%d sympy comparisons): %d normaliser, %d sympy, %d grade differences", len(cases), sympyN, normBad, sympyBad, gradeBad)
}

func deref(s *string) string {
	if s == nil {
		return "<None>"
	}
	return *s
}
