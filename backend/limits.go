package backend

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/mlperf-go/inference/internal/sysmem"
)

// ErrTooLarge marks a size (threads, batch) the machine cannot hold; the
// message carries the arithmetic.
var ErrTooLarge = errors.New("too large for this machine")

// MaxThreads is the most threads a thread-count option may ask for: 4 per
// logical CPU, at least 64. ONNX Runtime creates every thread up front and
// crashes (or stalls uninterruptibly) on absurd counts.
func MaxThreads() int { return max(4*runtime.NumCPU(), 64) }

// CheckThreads refuses a thread count (named by what, e.g. "--threads")
// that is negative or above MaxThreads. 0 means the library default.
func CheckThreads(what string, n int) error {
	if n < 0 {
		return fmt.Errorf("backend: %s %d: a thread count cannot be negative (0 picks the default)", what, n)
	}
	if m := MaxThreads(); n > m {
		return fmt.Errorf("backend: %s %d: %w: this machine has %d CPUs; use at most %d threads (4 per CPU), or 0 for the default", what, n, ErrTooLarge, runtime.NumCPU(), m)
	}
	return nil
}

// CheckBatchMemory refuses a batch whose working memory cannot fit:
// batch × bytesPerSample (the inputs, activations and outputs one sample
// needs at once, as the caller estimates it) over half of the machine's
// memory. what names the option (e.g. "--batch"). It returns the
// estimate in bytes.
func CheckBatchMemory(what string, batch int, bytesPerSample int64) (int64, error) {
	if batch < 1 {
		return 0, fmt.Errorf("backend: %s %d: a batch holds at least one sample", what, batch)
	}
	if bytesPerSample < 0 {
		return 0, fmt.Errorf("backend: %s: negative per-sample size %d", what, bytesPerSample)
	}
	budget := sysmem.Budget()
	need := float64(batch) * float64(bytesPerSample)
	if need > float64(budget) {
		return 0, fmt.Errorf("backend: %s %d: %w: %d samples × %s per sample = %s, over the %s this process may use (half of the machine's memory); use a batch of at most %d",
			what, batch, ErrTooLarge, batch, human(float64(bytesPerSample)), human(need), human(float64(budget)), max(budget/uint64(max(bytesPerSample, 1)), 1))
	}
	return int64(need), nil
}

func human(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}
