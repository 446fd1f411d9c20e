package backend

import (
	"errors"
	"math"
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
	_, err := CheckBatchMemory("--batch 100000", 100000, 100<<20)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "backend: --batch 100000: too large for this machine: 100000 samples at once × 100.0 MiB per sample = 9.5 TiB") || !strings.Contains(err.Error(), "samples fit at once") {
		t.Fatalf("err = %v", err)
	}
	if n, err := CheckBatchMemory("--batch 8", 8, 1<<20); err != nil || n != 8<<20 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if _, err := CheckBatchMemory("--batch 0", 0, 1); err == nil {
		t.Fatal("batch 0 accepted")
	}
}

func TestSampleBytes(t *testing.T) {
	in := []Info{{Name: "x", DType: Float32, Shape: []int64{-1, 3, 224, 224}}, {Name: "past", DType: Float32, Shape: []int64{-1, 8, -1, 128}}}
	if got := SampleBytes(in); got != 3*224*224*4+8*128*4 {
		t.Errorf("SampleBytes = %d", got)
	}
	huge := []Info{{Name: "x", DType: Float32, Shape: []int64{1 << 40, 1 << 40}}}
	if got := SampleBytes(huge); got != math.MaxInt64 {
		t.Errorf("saturating: %d", got)
	}
}
