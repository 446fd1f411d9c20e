package accuracy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkTop1_50000 scores a 50,000-entry ImageNet accuracy log in
// LoadGen's layout (float32 labels), reading the file each time.
func BenchmarkTop1_50000(b *testing.B) {
	const n = 50000
	rng := rand.New(rand.NewPCG(1, 1))
	labels := make([]int, n)
	var sb strings.Builder
	sb.WriteString("[\n")
	for i := range n {
		labels[i] = rng.IntN(1000)
		v := math.Float32bits(float32(labels[i]))
		if i%4 == 0 {
			v = math.Float32bits(float32(rng.IntN(1000)))
		}
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%02X%02X%02X%02X" }`, i, i, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	sb.WriteString("\n]\n")
	p := filepath.Join(b.TempDir(), "mlperf_log_accuracy.json")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := Top1(p, labels, Float32)
		if err != nil || r.Total != n {
			b.Fatal(r, err)
		}
	}
}
