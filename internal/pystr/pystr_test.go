package pystr

import (
	"math"
	"testing"
	"unicode"
)

// TestDecimalValueCoversEveryDecimalDigit: the Nd table's ranges are whole
// runs of ten digits 0..9, which DecimalValue relies on.
func TestDecimalValueCoversEveryDecimalDigit(t *testing.T) {
	n := 0
	for _, rg := range unicode.Nd.R16 {
		if rg.Stride != 1 || (int(rg.Hi)-int(rg.Lo)+1)%10 != 0 {
			t.Fatalf("Nd range %+v is not whole runs of ten", rg)
		}
		n += int(rg.Hi) - int(rg.Lo) + 1
	}
	for _, rg := range unicode.Nd.R32 {
		if rg.Stride != 1 || (int(rg.Hi)-int(rg.Lo)+1)%10 != 0 {
			t.Fatalf("Nd range %+v is not whole runs of ten", rg)
		}
		n += int(rg.Hi) - int(rg.Lo) + 1
	}
	for r, want := range map[rune]int{'7': 7, '\u0669': 9, '\u1A90': 0, '\u1A99': 9, '\U0001D7FF': 9, '\U0001D7CE': 0, '\uFF15': 5} {
		if d, ok := DecimalValue(r); !ok || d != want {
			t.Errorf("%U: %d %v, want %d", r, d, ok, want)
		}
	}
	if _, ok := DecimalValue('a'); ok || n < 600 {
		t.Fatalf("'a' is a digit, or only %d digits", n)
	}
}

// TestFloatAndIntAcceptWhatPythonAccepts: the cases are Python 3.11's
// float() and int() on each string.
func TestFloatAndIntAcceptWhatPythonAccepts(t *testing.T) {
	floats := map[string]float64{" 1.5 ": 1.5, "1_000.5": 1000.5, ".5": 0.5, "5.": 5, "-1e3": -1000, "+2E-2": 0.02,
		"\u0663.5": 3.5, "inf": math.Inf(1), "-Infinity": math.Inf(-1), "1e400": math.Inf(1), "\t7\n": 7}
	for s, want := range floats {
		if v, ok := Float(s); !ok || v != want {
			t.Errorf("Float(%q) = %v %v, want %v", s, v, ok, want)
		}
	}
	if v, ok := Float("nan"); !ok || !math.IsNaN(v) {
		t.Errorf("Float(nan) = %v %v", v, ok)
	}
	for _, s := range []string{"", "1__0", "_1", "1_", "1.5.2", "0x10", "1/2", "one", "1 2", "1e", "e5"} {
		if v, ok := Float(s); ok {
			t.Errorf("Float(%q) = %v, Python raises", s, v)
		}
	}
	ints := map[string]string{" 42 ": "42", "-0": "0", "+7": "7", "1_000": "1000", "007": "7", "\u0663\u0663": "33",
		"123456789012345678901234567890": "123456789012345678901234567890"}
	for s, want := range ints {
		if v, ok := Int(s); !ok || v.String() != want {
			t.Errorf("Int(%q) = %v %v, want %s", s, v, ok, want)
		}
	}
	for _, s := range []string{"", "4.0", "1e3", "1__0", "0x1f", "12a", "- 1"} {
		if v, ok := Int(s); ok {
			t.Errorf("Int(%q) = %v, Python raises", s, v)
		}
	}
}

func TestStripLowerUpperAreFullPython(t *testing.T) {
	if got := Strip("\x1c a\u00a0\u2003"); got != "a" {
		t.Errorf("Strip = %q", got)
	}
	if got := Lower("İΣΑΣ Σ"); got != "i\u0307σας σ" {
		t.Errorf("Lower = %q", got)
	}
	if got := Upper("straße ﬁ"); got != "STRASSE FI" {
		t.Errorf("Upper = %q", got)
	}
}
