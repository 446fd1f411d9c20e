//go:build cgo

package resnet50

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

type labelCompleter struct {
	mu     sync.Mutex
	labels map[loadgen.ResponseID]int
	errs   []error
	wg     sync.WaitGroup
}

func (c *labelCompleter) Complete(rs ...loadgen.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rs {
		if r.Err != nil {
			c.errs = append(c.errs, r.Err)
		} else if l, err := DecodeResponse(r.Data); err != nil {
			c.errs = append(c.errs, err)
		} else {
			c.labels[r.ID] = l
		}
		c.wg.Done()
	}
}

// TestTinyModelThroughHarness runs the whole ResNet50 path below the
// loadgen on real ONNX Runtime: synthetic JPEGs → preprocessing QSL →
// tiny synthetic model → Offline pool → response bytes, and checks that a
// batched run answers each sample as a run of that sample alone does.
func TestTinyModelThroughHarness(t *testing.T) {
	archNeedORT(t)
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	dir := t.TempDir()
	data, err := SynthDataset(filepath.Join(dir, "data"), 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DataConfig{Dir: data, Workers: 2, Warn: io.Discard}
	ds, err := OpenDataset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	qsl, err := NewQSL(ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tiny.onnx")
	if err := BuildFile(path, SizeTiny, ArchSeed); err != nil {
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
		c := &labelCompleter{labels: map[loadgen.ResponseID]int{}}
		c.wg.Add(len(q))
		sut.IssueQuery(ctx, q, c)
		c.wg.Wait()
		if len(c.errs) > 0 {
			t.Fatal(c.errs[0])
		}
		return c.labels
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
