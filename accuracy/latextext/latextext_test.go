package latextext

import (
	"encoding/json"
	"os"
	"testing"
)

// TestToTextMatchesPylatexenc converts every input of
// testdata/latex_golden.json (pylatexenc 2.10's outputs, written by
// testdata/make_golden.py: the MATH-500 answers, the grader's pairs and
// crafted LaTeX) and compares text and raise.
func TestToTextMatchesPylatexenc(t *testing.T) {
	b, err := os.ReadFile("testdata/latex_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		In    string  `json:"in"`
		Out   *string `json:"out"`
		Error string  `json:"error"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 1000 {
		t.Fatalf("only %d cases", len(cases))
	}
	bad := 0
	for _, c := range cases {
		got, err := ToText(c.In)
		switch {
		case c.Error != "" && err == nil:
			t.Errorf("%q: got %q, pylatexenc raises %s", c.In, got, c.Error)
		case c.Error == "" && err != nil:
			t.Errorf("%q: %v, pylatexenc gives %q", c.In, err, *c.Out)
		case c.Error == "" && got != *c.Out:
			t.Errorf("%q: got %q, pylatexenc %q", c.In, got, *c.Out)
		default:
			continue
		}
		if bad++; bad > 40 {
			t.Fatal("too many differences")
		}
	}
}

func TestTablesAreThePinnedPylatexenc(t *testing.T) {
	tb, err := getTables()
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version != "2.10" {
		t.Errorf("tables from pylatexenc %s, want 2.10", tb.Version)
	}
	if e := tb.macros["frac"]; e == nil || e.Args != "{{" || e.Repl == nil || *e.Repl != "%s/%s" {
		t.Errorf(`\frac entry %+v, want args {{ and %%s/%%s`, e)
	}
}
