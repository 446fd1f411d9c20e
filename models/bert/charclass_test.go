package bert

import (
	"slices"
	"testing"
	"unicode"
)

// TestCharClassesExhaustive compares tokenization.py's character classes
// (_is_control: category C*, _is_punctuation: ASCII symbols or P*,
// _is_whitespace: space, tab, CR, LF or Zs; accents: Mn) with CPython's
// unicodedata on every code point it assigns.
func TestCharClassesExhaustive(t *testing.T) {
	var g struct {
		Unassigned, Control, Punct, Zs, Mn [][2]rune
	}
	readJSON(t, "../../datasets/squad/pytext/testdata/golden.json", &g)
	in := func(rs [][2]rune, r rune) bool {
		i, _ := slices.BinarySearchFunc(rs, r, func(x [2]rune, r rune) int {
			switch {
			case x[1] < r:
				return -1
			case x[0] > r:
				return 1
			}
			return 0
		})
		return i < len(rs) && rs[i][0] <= r && r <= rs[i][1]
	}
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 20; r++ {
		if in(g.Unassigned, r) {
			// Cn for Python: control for the reference, unless Go's newer
			// Unicode assigns it (then the tables legitimately differ).
			continue
		}
		wantCtl := in(g.Control, r) && r != '\t' && r != '\n' && r != '\r'
		if got := isControl(r); got != wantCtl {
			t.Errorf("isControl(%U) = %v, want %v", r, got, wantCtl)
			bad++
		}
		ascii := (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126)
		if got, want := isPunctuation(r), ascii || in(g.Punct, r); got != want {
			t.Errorf("isPunctuation(%U) = %v, want %v", r, got, want)
			bad++
		}
		wantWS := r == ' ' || r == '\t' || r == '\n' || r == '\r' || in(g.Zs, r)
		if got := isWhitespace(r); got != wantWS {
			t.Errorf("isWhitespace(%U) = %v, want %v", r, got, wantWS)
			bad++
		}
		if got, want := unicode.Is(unicode.Mn, r), in(g.Mn, r); got != want {
			t.Errorf("Mn(%U) = %v, want %v", r, got, want)
			bad++
		}
	}
	// Code points unassigned in Go's tables too are controls.
	if !isControl(0x0378) || !isControl(0x10FFFF) {
		t.Error("unassigned code points should be controls")
	}
}
