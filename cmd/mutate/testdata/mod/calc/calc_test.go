package calc

import "testing"

func TestClamp(t *testing.T) {
	if Clamp(-5, 10) != 0 || Clamp(5, 10) != 5 || Clamp(50, 10) != 10 {
		t.Fatal("Clamp")
	}
}

// Only 0 is scaled, so v * k → v / k survives.
func TestScale(t *testing.T) {
	if Scale(0, 5) != 0 {
		t.Fatal("Scale")
	}
}
