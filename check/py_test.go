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

// TestPyJSONDumps: json.dumps with its defaults on the same values, as
// /usr/bin/python3 (3.11) prints them: booleans, null, ", " and ": "
// separators, and every character outside printable ASCII escaped
// (DEL and the astral plane as a surrogate pair included).
func TestPyJSONDumps(t *testing.T) {
	for in, want := range map[string]string{
		`true`:  `true`,
		`false`: `false`,
		`{"b": true, "n": null, "l": [1, "é", false], "f": 0.1, "s": "\u007f\t😀"}`: `{"b": true, "n": null, "l": [1, "\u00e9", false], "f": 0.1, "s": "\u007f\t\ud83d\ude00"}`,
		`"é€\u007f\u001f😀 a\"b\\"`:                                                 `"\u00e9\u20ac\u007f\u001f\ud83d\ude00 a\"b\\"`,
	} {
		v, err := decodeJSON([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := pyJSONDumps(v); got != want {
			t.Errorf("json.dumps(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestEndpointsAccuracyCountSumsAList: the accuracy sample count of an
// endpoints result sums its accuracy_scores' total_samples; no
// accuracy_scores is no count, and accuracy_scores that is not a list is
// the TypeError the checker stops on.
func TestEndpointsAccuracyCountSumsAList(t *testing.T) {
	for in, want := range map[string]int64{
		`{"accuracy_scores": [{"total_samples": 3}, {"total_samples": 4}]}`: 7,
		`{}`:                     -1,
		`{"accuracy_scores": 5}`: -2,
		`{"accuracy_scores": {"total_samples": 3}}`: -2,
	} {
		v, err := decodeJSON([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		n, ok, err := endpointsAccuracyCount(v)
		switch want {
		case -1:
			if ok || err != nil {
				t.Errorf("%s: %d, %v, %v; want no count", in, n, ok, err)
			}
		case -2:
			if err == nil || !strings.Contains(err.Error(), "TypeError") {
				t.Errorf("%s: %d, %v, %v; want a TypeError", in, n, ok, err)
			}
		default:
			if n != want || !ok || err != nil {
				t.Errorf("%s: %d, %v, %v; want %d", in, n, ok, err, want)
			}
		}
	}
}

// TestPyFloatOfValues: float() of a bool, an int and a str as Python
// 3.11 gives it (float(True) is 1.0, float(False) 0.0), and TypeError for
// None.
func TestPyFloatOfValues(t *testing.T) {
	for _, c := range []struct {
		v    value
		want float64
	}{{vBool(true), 1}, {vBool(false), 0}, {vInt(-7), -7}, {vFloat(2.5), 2.5}, {vStr(" 1_5 "), 15}} {
		if got, err := toFloat(c.v); err != nil || got != c.want {
			t.Errorf("float(%s) = %v, %v; want %v", pyRepr(c.v), got, err, c.want)
		}
	}
	if _, err := toFloat(none); err == nil || !strings.Contains(err.Error(), "TypeError: float() argument must be a string or a real number, not 'NoneType'") {
		t.Errorf("float(None): %v", err)
	}
}
