package gsm8k

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/mlperf-go/inference/internal/pynum"
)

// The golden is made by testdata/make_goldens.py from the reference's own
// find_numbers, find_number, maybe_remove_comma and try_float.
type golden struct {
	Cases []struct {
		Output, Target, Number, Pred string
		Numbers                      []string
		Correct                      bool
	}
	TryFloat []struct {
		S     string
		OK    bool
		Value *string
	} `json:"try_float"`
	Score string
}

func load(t *testing.T) *golden {
	b, err := os.ReadFile("testdata/gsm8k_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	g := new(golden)
	if err := json.Unmarshal(b, g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 20 || len(g.TryFloat) < 20 {
		t.Fatalf("golden has %d cases, %d floats", len(g.Cases), len(g.TryFloat))
	}
	return g
}

func TestExtractionMatchesReference(t *testing.T) {
	g := load(t)
	for _, c := range g.Cases {
		if got := FindNumbers(c.Output); !slices.Equal(got, c.Numbers) && !(len(got) == 0 && len(c.Numbers) == 0) {
			t.Errorf("find_numbers(%q) = %q, want %q", c.Output, got, c.Numbers)
		}
		if got := FindNumber(c.Output, AnswerDelimiter); got != c.Number {
			t.Errorf("find_number(%q) = %q, want %q", c.Output, got, c.Number)
		}
		if got := Extract(c.Output); got != c.Pred {
			t.Errorf("prediction of %q = %q, want %q", c.Output, got, c.Pred)
		}
		if got := Correct(c.Output, c.Target); got != c.Correct {
			t.Errorf("%q against %q: correct %v, want %v", c.Output, c.Target, got, c.Correct)
		}
	}
}

func TestPyFloatMatchesTryFloat(t *testing.T) {
	g := load(t)
	for _, c := range g.TryFloat {
		v, ok := PyFloat(c.S)
		if ok != c.OK {
			t.Errorf("try_float(%q): ok %v, want %v", c.S, ok, c.OK)
			continue
		}
		if !ok {
			continue
		}
		want := *c.Value
		switch want {
		case "inf":
			if !math.IsInf(v, 1) {
				t.Errorf("%q: %v, want inf", c.S, v)
			}
		case "nan":
			if !math.IsNaN(v) {
				t.Errorf("%q: %v, want nan", c.S, v)
			}
		default:
			w, err := strconv.ParseFloat(want, 64)
			if err != nil || v != w || math.Signbit(v) != math.Signbit(w) {
				t.Errorf("try_float(%q) = %v, want %s", c.S, v, want)
			}
		}
	}
}

func TestScoreMatchesReference(t *testing.T) {
	g := load(t)
	var outs, tgts []string
	for _, c := range g.Cases {
		outs = append(outs, c.Output)
		tgts = append(tgts, c.Target)
	}
	r, err := Score(outs, tgts)
	if err != nil {
		t.Fatal(err)
	}
	if got := pynum.FloatRepr(r.Accuracy); got != g.Score {
		t.Fatalf("score %s (%d/%d), want %s", got, r.Correct, r.Total, g.Score)
	}
	if _, err := Score(nil, nil); err == nil {
		t.Error("no outputs: no error")
	}
	if _, err := Score([]string{"1"}, nil); err == nil {
		t.Error("length mismatch: no error")
	}
}
