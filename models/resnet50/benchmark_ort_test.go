//go:build cgo

package resnet50

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// TestTinyModelThroughHarness runs the whole ResNet50 path below the
// loadgen on real ONNX Runtime: synthetic JPEGs → preprocessing QSL →
// tiny synthetic model → Offline pool → response bytes, and checks that a
// batched run answers each sample as a run of that sample alone does.
func TestTinyModelThroughHarness(t *testing.T) {
	orttest.Need(t)
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	dir := t.TempDir()
	data, err := synthDataset(filepath.Join(dir, "data"), 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := dataConfig{Dir: data, Workers: 2, Warn: io.Discard}
	ds, err := openDataset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	qsl, err := newQSL(ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tiny.onnx")
	if err := buildFile(path, sizeTiny, archSeed); err != nil {
		t.Fatal(err)
	}
	sess, err := ort.Open(path, ort.Options{IntraOpThreads: 1, Outputs: []string{ArgMaxName}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	m, err := New(sess, qsl.Sample)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all := make([]loadgen.SampleIndex, ds.Len())
	for i := range all {
		all[i] = loadgen.SampleIndex(i)
	}
	if err := qsl.LoadSamples(ctx, all); err != nil {
		t.Fatal(err)
	}
	run := func(sut loadgen.SUT, q []loadgen.Sample) map[loadgen.ResponseID]int {
		c := loadgentest.NewRecorder()
		sut.IssueQuery(ctx, q, c)
		labels := map[loadgen.ResponseID]int{}
		for id, r := range c.Wait(len(q)) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			l, err := DecodeResponse(r.Data)
			if err != nil {
				t.Fatal(err)
			}
			labels[id] = l
		}
		return labels
	}
	query := make([]loadgen.Sample, 2*ds.Len()) // every sample twice
	for i := range query {
		query[i] = loadgen.Sample{ID: loadgen.ResponseID(i), Index: all[i%ds.Len()]}
	}
	pool := harness.NewPool(m, harness.PoolConfig{Batch: 3, Workers: 2})
	defer pool.Close()
	batched := run(pool, query)
	single := run(harness.NewInline(m, 1), query[:ds.Len()])
	for i, q := range query {
		want := single[loadgen.ResponseID(i%ds.Len())]
		if got := batched[q.ID]; got != want {
			t.Fatalf("sample %d: batched label %d, alone %d", q.Index, got, want)
		}
	}
}
