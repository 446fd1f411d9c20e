package sysmem

import (
	"runtime"
	"testing"
)

func TestTotalAndBudget(t *testing.T) {
	tot := Total()
	if runtime.GOOS == "linux" && tot < 1<<26 {
		t.Fatalf("Total() = %d bytes on Linux", tot)
	}
	if b := Budget(); tot > 0 && b != tot/2 || b == 0 {
		t.Fatalf("Budget() = %d with Total() = %d", b, tot)
	}
}
