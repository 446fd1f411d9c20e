package englishnorm

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// golden.json is written by testdata/gen_golden.py, which runs
// openai/whisper's EnglishTextNormalizer itself on hand-written texts
// (numbers, currencies, contractions, titles, fillers, brackets,
// diacritics, Unicode digits and white space, British spellings), seeded
// random texts over the number vocabulary, and texts over the 42 labels of
// the MLPerf scorer.
type goldenCase struct {
	Kind  string  `json:"kind"`
	In    string  `json:"in"`
	Out   *string `json:"out"`
	Error string  `json:"error"`
}

func TestNormalizeMatchesWhisper(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	n, err := New()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	bad := 0
	for _, c := range cases {
		kinds[c.Kind]++
		got, err := n.Normalize(c.In)
		switch {
		case c.Error != "":
			if !errors.Is(err, ErrUnexpected) {
				t.Errorf("%q: Python raises %s, Go gives %q, %v", c.In, c.Error, got, err)
				bad++
			}
		case err != nil || c.Out == nil || got != *c.Out:
			if bad < 25 {
				t.Errorf("%s %q:\n  got  %q (%v)\n  want %q", c.Kind, c.In, got, err, deref(c.Out))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ", bad, len(cases))
	}
	for _, k := range []string{"hand", "random", "labels", "spelling"} {
		if kinds[k] < 100 {
			t.Errorf("only %d %s cases", kinds[k], k)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// FuzzNormalize: any text normalises without a panic, failing only with
// ErrUnexpected (where Python raises).
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"twenty five dollars", "one oh one", "$5 and 7¢", "İΣ ٣.٥", "double oh point"} {
		f.Add(s)
	}
	n, err := New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := n.Normalize(s); err != nil && !errors.Is(err, ErrUnexpected) {
			t.Fatalf("%q: %v", s, err)
		}
	})
}
