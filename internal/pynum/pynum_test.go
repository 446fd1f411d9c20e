package pynum

import "testing"

func TestNumpyHelpers(t *testing.T) {
	// pairwise sum equals the exact sum on integers and is order-stable
	a := make([]float64, 1000)
	for i := range a {
		a[i] = float64(i)
	}
	if got := Sum(a); got != 499500 {
		t.Errorf("pairwise sum %v", got)
	}
	for _, c := range []struct {
		x    float64
		want float64
	}{{42.98654999, 42.9865}, {0.00005, 0.0}, {0.00015, 0.0001}, {1.23456789, 1.2346}} { // values from numpy 1.24
		if got := Round(c.x, 4); got != c.want {
			t.Errorf("Round(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	for _, c := range []struct {
		x    float64
		want string
	}{{294.4, "294.4"}, {44.0, "44.0"}, {0, "0.0"}, {1e-5, "1e-05"}, {30.657, "30.657"}} {
		if got := FloatRepr(c.x); got != c.want {
			t.Errorf("FloatRepr(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	if Round1(294.45) != 294.4 || Round1(0.25) != 0.2 || Round1(33.083333) != 33.1 {
		t.Error("Round1")
	}
}
