package dlrm

import (
	"context"
	"testing"

	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// TestFullArchParameterCount checks the dense part's size against the
// reference architecture: DenseArch 171,392 + CrossNet 10,627,200 +
// OverArch 5,245,953 parameters.
func TestFullArchParameterCount(t *testing.T) {
	g, err := denseGraph(archFull, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	for _, t := range g.Initializers() {
		if t.DType == onnx.Float { // not the int64 shapes of the reshapes
			got += t.Elements()
		}
	}
	if want := int64(171392 + 10627200 + 5245953); got != want {
		t.Errorf("full dense graph: %d parameters, want %d", got, want)
	}
	a, _ := archOf("full")
	rows := 0
	for k := range criteo.NumSparse {
		rows += a.Rows(k)
	}
	if rows != 645486 {
		t.Errorf("capped tables hold %d rows, want 645486 (README)", rows)
	}
	if _, err := archOf("huge"); err == nil {
		t.Error("ArchOf accepted an unknown size")
	}
	bad := archFull
	bad.Top = []int{1024, 2}
	if _, err := denseGraph(bad, 1, nil); err == nil {
		t.Error("a top MLP not ending in 1 was accepted")
	}
}

func TestQSLLoadsTraceSamples(t *testing.T) {
	dir := t.TempDir()
	if err := criteo.Synth(dir, criteo.SynthConfig{Rows: 300}); err != nil {
		t.Fatal(err)
	}
	ds, err := criteo.Open(dir, criteo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	tr, _ := criteo.FixedTrace(ds.Rows, 7)
	q := &qsl{ds: ds, trace: tr}
	if q.TotalSampleCount() != 22 || q.PerformanceSampleCount() != 22 {
		t.Errorf("counts %d, %d; want 22 (150 rows by 7)", q.TotalSampleCount(), q.PerformanceSampleCount())
	}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{0, 21}); err != nil {
		t.Error(err)
	}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{22}); err == nil {
		t.Error("loading a sample past the trace succeeded")
	}
}
