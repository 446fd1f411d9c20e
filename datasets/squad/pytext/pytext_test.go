package pytext

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"
)

// golden is written by testdata/gen_golden.py from CPython.
type golden struct {
	Python     string
	Unicode    string
	Unassigned [][2]rune
	Space      [][2]rune
	Word       [][2]rune
	Lower      map[string]string
	Strings    []struct {
		S, Lower, Strip string
		Split           []string
	}
	Floats []struct {
		Bits uint64
		Repr string
	}
}

func loadGolden(t testing.TB) *golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func inRanges(rs [][2]rune, r rune) bool {
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

// TestCharClassesExhaustive compares every code point that CPython's
// Unicode database assigns (surrogates aside) with str.isspace, re's \w and
// str.lower.
func TestCharClassesExhaustive(t *testing.T) {
	g := loadGolden(t)
	t.Logf("golden from Python %s, Unicode %s; Go Unicode %s", g.Python, g.Unicode, unicode.Version)
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 20; r++ {
		if (r >= 0xD800 && r <= 0xDFFF) || inRanges(g.Unassigned, r) {
			continue
		}
		if got, want := IsSpace(r), inRanges(g.Space, r); got != want {
			t.Errorf("IsSpace(%U) = %v, want %v", r, got, want)
			bad++
		}
		if got, want := IsWordChar(r), inRanges(g.Word, r); got != want {
			t.Errorf("IsWordChar(%U) = %v, want %v", r, got, want)
			bad++
		}
		want, ok := g.Lower[itoa(r)]
		if !ok {
			want = string(r)
		}
		if r == capitalSigma {
			continue // context-dependent, checked in TestStrings
		}
		if got := Lower(string(r)); got != want {
			t.Errorf("Lower(%U) = %q, want %q", r, got, want)
			bad++
		}
	}
}

func itoa(r rune) string {
	b, _ := json.Marshal(int(r))
	return string(b)
}

func TestStrings(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Strings {
		if got := Lower(c.S); got != c.Lower {
			t.Errorf("Lower(%q) = %q, want %q", c.S, got, c.Lower)
		}
		if got := Fields(c.S); !slices.Equal(got, c.Split) && !(len(got) == 0 && len(c.Split) == 0) {
			t.Errorf("Fields(%q) = %q, want %q", c.S, got, c.Split)
		}
		if got := Strip(c.S); got != c.Strip {
			t.Errorf("Strip(%q) = %q, want %q", c.S, got, c.Strip)
		}
	}
}

func TestFloatRepr(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Floats {
		f := math.Float64frombits(c.Bits)
		if got := FloatRepr(f); got != c.Repr {
			t.Errorf("FloatRepr(%v) = %q, want %q", f, got, c.Repr)
		}
	}
	for f, want := range map[float64]string{math.NaN(): "NaN", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity"} {
		if got := FloatRepr(f); got != want {
			t.Errorf("FloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
}

func FuzzLower(f *testing.F) {
	for _, s := range []string{"ΟΔΟΣ", "aΣ'b", "İ", "\xff\xfeΣ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := Lower(s)
		if utf8.ValidString(s) && utf8.RuneCountInString(l) < utf8.RuneCountInString(s) {
			t.Fatalf("Lower(%q) = %q lost characters", s, l)
		}
		_ = JoinFields(s)
		_ = Strip(s)
	})
}
