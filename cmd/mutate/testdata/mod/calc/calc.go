// Package calc is cmd/mutate's test fixture.
package calc

// Clamp limits v to [0, hi].
func Clamp(v, hi int) int {
	if v < 0 {
		return 0
	}
	if v > hi {
		return hi
	}
	return v
}

// Scale multiplies v by k.
func Scale(v, k int) int { return v * k }

// unused is reached by no test.
func unused(a int) bool { return a == 3 }

// Mode is a file mode: listed, not judged.
const Mode = 0o644
