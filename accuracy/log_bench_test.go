package accuracy

import (
	"bufio"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkReadLog streams a ~200 MB accuracy log in LoadGen's layout
// (entries of 4 KB of data, 8 KB of hex) through LogReader; MB/s counts
// the file's bytes.
func BenchmarkReadLog(b *testing.B) {
	const entries, size = 25000, 4096
	p := filepath.Join(b.TempDir(), "mlperf_log_accuracy.json")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, size)
	hx := make([]byte, 2*size)
	w.WriteString("[\n")
	for i := range entries {
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		hex.Encode(hx, data)
		if i > 0 {
			w.WriteString(",\n")
		}
		w.WriteString(`{ "seq_id" : ` + strconv.Itoa(i) + `, "qsl_idx" : ` + strconv.Itoa(i%5000) + `, "data" : "`)
		w.Write(toUpperHex(hx))
		w.WriteString(`" }`)
	}
	w.WriteString("\n]\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.SetBytes(st.Size())
	b.ResetTimer()
	for range b.N {
		r, err := OpenLog(p)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil || len(e.Data) != size {
				b.Fatal(len(e.Data), err)
			}
			n++
		}
		r.Close()
		if n != entries {
			b.Fatalf("%d entries, want %d", n, entries)
		}
	}
}

func toUpperHex(b []byte) []byte {
	for i, c := range b {
		if c >= 'a' {
			b[i] = c - 'a' + 'A'
		}
	}
	return b
}
