package criteo

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mlperf-go/inference/loadgen/rng"
)

// DistQuantile is the query-size quantile of the reference's
// tools/dist_quantile.txt (mlcommons/inference
// recommendation/dlrm_v2/pytorch/tools): the inverse CDF of the number of
// rows per aggregated sample at 20 equal steps (mean 270).
var DistQuantile = []int{100, 100, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 300, 300, 400, 500, 600, 700}

// DefaultNumpySeed is the reference's --numpy-rand-seed.
const DefaultNumpySeed = 123

// TraceFile is the reference's default --samples-to-aggregate-trace-file.
const TraceFile = "dlrm_trace_of_aggregated_samples.txt"

// Trace is the partition of a data set's rows into aggregated samples
// (one LoadGen sample each): sample j is rows [Offsets[j], Offsets[j+1]).
type Trace struct {
	Offsets []int
}

// Len is the number of aggregated samples.
func (t *Trace) Len() int { return len(t.Offsets) - 1 }

// Rows returns the row range of sample j.
func (t *Trace) Rows(j int) (start, end int) { return t.Offsets[j], t.Offsets[j+1] }

// Truncate keeps the first n samples (the reference's --count-samples);
// n ≤ 0 or more than Len keeps all.
func (t *Trace) Truncate(n int) {
	if n > 0 && n < t.Len() {
		t.Offsets = t.Offsets[:n+1]
	}
}

// NumpyRandint reproduces numpy's legacy global generator
// (np.random.seed(seed) then np.random.randint(0, high)) draw by draw:
// MT19937 seeded with init_genrand(seed mod 2^32), each draw taking 32-bit
// outputs masked to the smallest all-ones mask covering high−1 and
// rejecting values above high−1 (numpy random/src/distributions
// buffered_bounded_masked_uint32, used by RandomState.randint). It is not
// safe for concurrent use.
type NumpyRandint struct {
	g *rng.MT19937
}

// NewNumpyRandint seeds the generator as np.random.seed(seed).
func NewNumpyRandint(seed uint32) *NumpyRandint {
	return &NumpyRandint{g: rng.New(uint64(seed))}
}

// Intn returns np.random.randint(0, high) for 1 ≤ high ≤ 2^32.
func (r *NumpyRandint) Intn(high int) int {
	if high <= 1 {
		return 0
	}
	rng := uint32(high - 1)
	mask := rng
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	mask |= mask >> 16
	for {
		if v := r.g.Uint32() & mask; v <= rng {
			return int(v)
		}
	}
}

// QuantileTrace aggregates rows samples as the reference does with
// --samples-to-aggregate-quantile-file: starting at offset 0, repeatedly
// draw p = np.random.randint(0, len(quantile)) from the numpy generator
// seeded with seed and advance by quantile[p] rows, the last sample
// ending at rows.
func QuantileTrace(rows int, quantile []int, seed uint32) (*Trace, error) {
	if rows < 1 {
		return nil, fmt.Errorf("criteo: aggregation of %d rows", rows)
	}
	if len(quantile) == 0 {
		return nil, fmt.Errorf("criteo: empty aggregation quantile")
	}
	for _, q := range quantile {
		if q < 1 {
			return nil, fmt.Errorf("criteo: aggregation quantile holds %d; want positive sizes", q)
		}
	}
	r := NewNumpyRandint(seed)
	off := []int{0}
	for o := 0; o < rows; {
		o = min(o+quantile[r.Intn(len(quantile))], rows)
		off = append(off, o)
	}
	return &Trace{Offsets: off}, nil
}

// FixedTrace aggregates rows in samples of k rows (the last may be
// shorter), as --samples-to-aggregate-fix does (k = 1 without any
// aggregation option).
func FixedTrace(rows, k int) (*Trace, error) {
	if rows < 1 || k < 1 {
		return nil, fmt.Errorf("criteo: fixed aggregation of %d rows by %d; want positive values", rows, k)
	}
	off := make([]int, 0, (rows+k-1)/k+1)
	for o := 0; o < rows; o += k {
		off = append(off, o)
	}
	return &Trace{Offsets: append(off, rows)}, nil
}

// ReadQuantile reads a quantile file in the format of the reference's
// tools/dist_quantile.txt: comma-separated sizes on the first line.
func ReadQuantile(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("criteo: quantile file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	var q []int
	for _, f := range strings.Split(line, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("criteo: quantile file %s: %q is not a positive row count", path, f)
		}
		q = append(q, v)
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("criteo: quantile file %s: no sizes on its first line", path)
	}
	return q, nil
}

// WriteTrace writes t as the reference writes
// dlrm_trace_of_aggregated_samples.txt: one line "start, end, size" per
// sample.
func WriteTrace(path string, t *Trace) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("criteo: trace file: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	var buf []byte
	for j := range t.Len() {
		s, e := t.Rows(j)
		buf = strconv.AppendInt(buf[:0], int64(s), 10)
		buf = append(buf, ", "...)
		buf = strconv.AppendInt(buf, int64(e), 10)
		buf = append(buf, ", "...)
		buf = strconv.AppendInt(buf, int64(e-s), 10)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("criteo: trace file: %w", err)
	}
	return f.Close()
}

// ReadTrace reads a trace file as accuracy-dlrm.py does: the third field
// of each "start, end, size" line is the sample's row count, and samples
// are contiguous from row 0.
func ReadTrace(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("criteo: aggregation trace: %w", err)
	}
	defer f.Close()
	off := []int{0}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Split(sc.Text(), ", ")
		if len(fs) < 3 {
			return nil, fmt.Errorf("criteo: aggregation trace %s line %d: %q is not \"start, end, size\"", path, n, sc.Text())
		}
		v, err := strconv.Atoi(strings.TrimSpace(fs[2]))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("criteo: aggregation trace %s line %d: size %q", path, n, fs[2])
		}
		off = append(off, off[len(off)-1]+v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("criteo: aggregation trace %s: %w", path, err)
	}
	return &Trace{Offsets: off}, nil
}
