package check

import (
	"math/big"
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
