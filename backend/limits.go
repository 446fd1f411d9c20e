package backend

import (
	"errors"
	"fmt"
	"math"
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

// WorkingFactor is how many times its inputs and outputs one sample is
// taken to need while it runs in a batch: the batch buffer, the engine's
// input and output tensors and their copies, the activations. It is an
// estimate, to refuse batches that cannot fit before they are allocated,
// not to plan memory.
const WorkingFactor = 8

// SampleBytes is the size in bytes of one sample's tensors described by
// infos: every dynamic dimension (the batch, a sequence) taken as 1. It
// saturates at math.MaxInt64.
func SampleBytes(infos []Info) int64 {
	total := int64(0)
	for _, in := range infos {
		n := int64(in.DType.Size())
		for _, d := range in.Shape {
			if d > 1 {
				if n > math.MaxInt64/d {
					return math.MaxInt64
				}
				n *= d
			}
		}
		if total > math.MaxInt64-n {
			return math.MaxInt64
		}
		total += n
	}
	return total
}

// CheckBatchMemory refuses n samples held at once whose working memory
// cannot fit: n × bytesPerSample (what one sample needs while it runs, as
// the caller estimates it) over half of the machine's memory. what names
// the settings that make the n samples (e.g. "--batch 20000", or
// "--batch 64 × --workers 8"). It returns the estimate in bytes.
func CheckBatchMemory(what string, n int, bytesPerSample int64) (int64, error) {
	if n < 1 {
		return 0, fmt.Errorf("backend: %s: a batch holds at least one sample", what)
	}
	if bytesPerSample < 0 {
		return 0, fmt.Errorf("backend: %s: negative per-sample size %d", what, bytesPerSample)
	}
	budget := sysmem.Budget()
	need := float64(n) * float64(bytesPerSample)
	if need > float64(budget) {
		return 0, fmt.Errorf("backend: %s: %w: %d samples at once × %s per sample = %s, over the %s this process may use (half of the machine's memory); at most %d samples fit at once",
			what, ErrTooLarge, n, human(float64(bytesPerSample)), human(need), human(float64(budget)), max(budget/uint64(max(bytesPerSample, 1)), 1))
	}
	return int64(need), nil
}

// FormatBytes writes a byte count for a person: "4.6 MiB".
func FormatBytes(n int64) string { return human(float64(n)) }

func human(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}
