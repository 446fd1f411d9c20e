package boxed

import (
	"encoding/json"
	"testing"

	"github.com/mlperf-go/inference/internal/goldentest"
)

// TestParseMatchesReferences holds Boxed, AIME and AIMECorrect to the
// reference functions on the recorded outputs (testdata/boxed_golden.json.gz,
// written by accuracy/reasoneval/testdata/make_goldens.py parse): 260 AIME
// outputs (boxed, "Answer:", out of range, decimals, Unicode digits,
// several answers, truncated) and 260 MATH-500 outputs.
func TestParseMatchesReferences(t *testing.T) {
	b, err := goldentest.ReadFile("testdata/boxed_golden.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		AIME []struct {
			Text   string
			Truth  *string
			Parsed *int
			OK     bool
			Boxed  *string
		}
		Math []struct {
			Text  string
			Boxed *string
		}
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.AIME) < 200 || len(g.Math) < 200 {
		t.Fatalf("only %d AIME and %d MATH outputs", len(g.AIME), len(g.Math))
	}
	correct := 0
	for _, c := range g.AIME {
		v, ok := AIME(c.Text)
		if ok != (c.Parsed != nil) || ok && v != *c.Parsed {
			t.Errorf("AIME(%q) = %d %v, reference %v", c.Text, v, ok, c.Parsed)
		}
		if c.Truth != nil {
			if got := AIMECorrect(v, ok, *c.Truth); got != c.OK {
				t.Errorf("evaluate_aime(%d, %q) = %v, reference %v", v, *c.Truth, got, c.OK)
			}
		}
		if c.OK {
			correct++
		}
		checkBoxed(t, c.Text, c.Boxed)
	}
	for _, c := range g.Math {
		checkBoxed(t, c.Text, c.Boxed)
	}
	if correct == 0 || correct == len(g.AIME) {
		t.Errorf("%d of %d AIME outputs correct: the goldens should have both", correct, len(g.AIME))
	}
}

func checkBoxed(t *testing.T, text string, want *string) {
	t.Helper()
	got, ok := Boxed(text)
	if ok != (want != nil) || ok && got != *want {
		t.Errorf("Boxed(%q) = %q %v, reference %v", text, got, ok, want)
	}
}
