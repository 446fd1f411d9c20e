package check

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// TestPyIntOfStrings: Python 3.11's int() on the same strings (printed by
// /usr/bin/python3): signs, surrounding white space and single
// underscores between digits are taken; anything else is ValueError.
func TestPyIntOfStrings(t *testing.T) {
	for s, want := range map[string]int64{"12": 12, " +7 ": 7, "1_2": 12, "-0": 0, "\t3\n": 3, "-45": -45} {
		n, err := pyInt(vStr(s))
		if err != nil || n.Cmp(big.NewInt(want)) != 0 {
			t.Errorf("int(%q) = %v, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"--5", "+-5", "", "_1", "1_", "1__2", "1.5", "+", " ", "1 2", "0x10"} {
		if n, err := pyInt(vStr(s)); err == nil {
			t.Errorf("int(%q) = %v, want ValueError", s, n)
		}
	}
}

// TestPyJoin: os.path.join's results for the same parts.
func TestPyJoin(t *testing.T) {
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{[]string{"", "a"}, "a"},
		{[]string{"a/", "b"}, "a/b"},
		{[]string{"a", "b"}, "a/b"},
		{[]string{"a", "/b"}, "/b"},
		{[]string{"a", "", "c"}, "a/c"},
		{[]string{"a", "b/", "c"}, "a/b/c"},
	} {
		if got := pyJoin(c.parts...); got != c.want {
			t.Errorf("pyJoin(%q) = %q, want %q", c.parts, got, c.want)
		}
	}
}

// TestPyParseFloat: Python 3.11's float() on the same strings (printed by
// /usr/bin/python3).
func TestPyParseFloat(t *testing.T) {
	for s, want := range map[string]float64{"1.5": 1.5, " -2e3 ": -2000, "inf": math.Inf(1), "-Infinity": math.Inf(-1),
		"1_000.5": 1000.5, "1e999": math.Inf(1), "+1.": 1, ".5": 0.5} {
		if f, err := pyParseFloat(s); err != nil || f != want {
			t.Errorf("float(%q) = %v, %v; want %v", s, f, err, want)
		}
	}
	for _, s := range []string{"nan", "NaN"} {
		if f, err := pyParseFloat(s); err != nil || !math.IsNaN(f) {
			t.Errorf("float(%q) = %v, %v; want nan", s, f, err)
		}
	}
	for _, s := range []string{"1__0", "_1", "1_", "0x10", "0X10", "-0x1p3", "abc", "1_e5", "1._5", "1e_5", "-_1"} {
		if f, err := pyParseFloat(s); err == nil {
			t.Errorf("float(%q) = %v, want ValueError", s, f)
		}
	}
}

// TestPyTruthAndOrderingOfJSONValues: Python 3.11's bool(), < and == on
// the same json.loads values (printed by /usr/bin/python3): empty and
// non-empty lists and dicts, and infinities against an integer beyond
// float64 (Python compares a float and an int exactly).
func TestPyTruthAndOrderingOfJSONValues(t *testing.T) {
	dec := func(s string) value {
		t.Helper()
		v, err := decodeJSON([]byte(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return v
	}
	for s, want := range map[string]bool{`[]`: false, `[0]`: true, `{}`: false, `{"a": 0}`: true, `""`: false, `"0"`: true, `0.0`: false, `0`: false, `null`: false} {
		if got := dec(s).truthy(); got != want {
			t.Errorf("bool(%s) = %v, want %v", s, got, want)
		}
	}
	big := "1" + strings.Repeat("0", 400) // 10**400
	for _, c := range []struct {
		a, b   string
		lt, eq bool
	}{
		{"Infinity", big, false, false},
		{big, "Infinity", true, false},
		{"-Infinity", "-" + big, true, false},
		{"1e400", big, false, false}, // json.loads reads 1e400 as inf
		{"1e308", big, true, false},
		{"Infinity", "Infinity", false, true},
		{"-Infinity", "5", true, false},
		{"Infinity", "1.5", false, false},
		{"NaN", "Infinity", false, false},
	} {
		a, b := dec(c.a), dec(c.b)
		got, err := lt(a, b)
		if err != nil || got != c.lt || eq(a, b) != c.eq {
			t.Errorf("%.12s < %.12s = %v (%v), == %v; want %v, %v", c.a, c.b, got, err, eq(a, b), c.lt, c.eq)
		}
		if g, _ := gt(b, a); g != c.lt {
			t.Errorf("%.12s > %.12s = %v, want %v", c.b, c.a, g, c.lt)
		}
	}
}
