package backend

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckThreads(t *testing.T) {
	for _, n := range []int{0, 1, MaxThreads()} {
		if err := CheckThreads("--threads", n); err != nil {
			t.Errorf("%d: %v", n, err)
		}
	}
	if err := CheckThreads("--threads", 100000); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "CPUs") {
		t.Errorf("100000: %v", err)
	}
	if err := CheckThreads("--threads", -1); err == nil {
		t.Error("-1 accepted")
	}
}

func TestCheckBatchMemory(t *testing.T) {
	// ResNet50: 3×224×224 float32 input plus activations, ~600 kB is a
	// floor; 100000 of them at 100 MB each cannot fit anywhere.
	_, err := CheckBatchMemory("--batch", 100000, 100<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "100000 samples ×") || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("err = %v", err)
	}
	if n, err := CheckBatchMemory("--batch", 8, 1<<20); err != nil || n != 8<<20 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if _, err := CheckBatchMemory("--batch", 0, 1); err == nil {
		t.Fatal("batch 0 accepted")
	}
}
