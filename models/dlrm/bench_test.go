package dlrm

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/mlperf-go/inference/datasets/criteo"
)

// BenchmarkPool measures the embedding stage on 128-d tables: one
// iteration pools the 214 ids of 256 rows over the 26 features; the
// rows/s metric is the stage's throughput on one core.
func BenchmarkPool(b *testing.B) {
	const rows, dim, tableRows = 256, 128, 4096
	e := &embeddings{Dim: dim}
	r := rand.New(rand.NewPCG(1, 2))
	var ids [criteo.NumSparse][]byte
	for k := range criteo.NumSparse {
		e.tables[k] = make([]float32, tableRows*dim)
		for i := range e.tables[k] {
			e.tables[k][i] = r.Float32()
		}
		e.rows[k] = tableRows
		for range rows * criteo.MultiHot[k] {
			ids[k] = binary.LittleEndian.AppendUint32(ids[k], uint32(r.IntN(tableRows)))
		}
	}
	stride := criteo.NumSparse * dim
	dst := make([]float32, rows*stride)
	b.ResetTimer()
	for b.Loop() {
		for k := range criteo.NumSparse {
			if err := e.Pool(k, ids[k], rows, criteo.MultiHot[k], dst[k*dim:], stride); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
