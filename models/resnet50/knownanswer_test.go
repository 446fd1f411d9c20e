//go:build cgo

package resnet50

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess/libjpeg"
)

// knownAnswerSetup writes the known-answer data set of n images and model
// and opens them: QSL and model over a real ONNX Runtime session.
func knownAnswerSetup(t *testing.T, n int) (labels []int, qsl *harness.QSL[[]float32], m *Model) {
	t.Helper()
	orttest.Need(t)
	if !libjpeg.Available() {
		t.Skip("built without cgo: no JPEG decoder")
	}
	dir := t.TempDir()
	labels, err := knownAnswerDataset(filepath.Join(dir, "data"), n)
	if err != nil {
		t.Fatal(err)
	}
	cfg := dataConfig{Dir: filepath.Join(dir, "data"), Workers: 2, Warn: io.Discard}
	ds, err := openDataset(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if qsl, err = newQSL(ds, cfg); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "known.onnx")
	if err := buildKnownAnswerFile(path); err != nil {
		t.Fatal(err)
	}
	sess, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if m, err = New(sess, qsl.Sample); err != nil {
		t.Fatal(err)
	}
	return labels, qsl, m
}

// TestKnownAnswerAccuracyEndToEnd runs an accuracy-mode Offline test of
// the known-answer model through the loadgen, the batching pool and the
// accuracy log, and scores it with accuracy.Top1: every answer is known,
// so anything but 100 % is a bug somewhere on the path (JPEG decoding,
// preprocessing, batching, response encoding, logging or scoring).
func TestKnownAnswerAccuracyEndToEnd(t *testing.T) {
	n := 2*len(knownAnswerPatterns) + 5
	labels, qsl, m := knownAnswerSetup(t, n)
	pool := harness.NewPool(m, harness.PoolConfig{Batch: 4, Workers: 2})
	defer pool.Close()
	s := loadgen.DefaultSettings()
	s.Scenario, s.Mode = loadgen.Offline, loadgen.AccuracyOnly
	out := t.TempDir()
	res, err := loadgen.Run(context.Background(), pool, qsl, s, loadgen.LogSettings{OutDir: out, Prefix: "mlperf_log_"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("accuracy run invalid: %v", res.InvalidReasons)
	}
	top1, err := accuracy.Top1(filepath.Join(out, "mlperf_log_accuracy.json"), labels, accuracy.Float32)
	if err != nil {
		t.Fatal(err)
	}
	if top1.Total != n || top1.Good != n {
		t.Fatalf("top-1 %d of %d (%d logged): want all %d right; %s", top1.Good, n, top1.Total, n, top1)
	}
}

// TestKnownAnswerModelIsSensitive shows that the end-to-end test can fail:
// the model classifies each correctly preprocessed image as its class, and
// every image read in BGR order, mirrored, or not mean-subtracted as
// another.
func TestKnownAnswerModelIsSensitive(t *testing.T) {
	n := len(knownAnswerPatterns)
	labels, qsl, m := knownAnswerSetup(t, n)
	ctx := context.Background()
	all := make([]loadgen.SampleIndex, n)
	for i := range all {
		all[i] = loadgen.SampleIndex(i)
	}
	if err := qsl.LoadSamples(ctx, all); err != nil {
		t.Fatal(err)
	}
	const plane = inputSize * inputSize
	variants := map[string]func(x []float32){
		"as preprocessed": func([]float32) {},
		"BGR": func(x []float32) {
			for i := range plane {
				x[i], x[2*plane+i] = x[2*plane+i], x[i]
			}
		},
		"mirrored": func(x []float32) {
			for c := range 3 {
				for y := range inputSize {
					row := x[c*plane+y*inputSize : c*plane+(y+1)*inputSize]
					for a, b := 0, inputSize-1; a < b; a, b = a+1, b-1 {
						row[a], row[b] = row[b], row[a]
					}
				}
			}
		},
		"no mean subtraction": func(x []float32) {
			for c := range 3 {
				for i := range plane {
					x[c*plane+i] += means[c]
				}
			}
		},
	}
	for name, change := range variants {
		right := 0
		for i := range n {
			x, ok := qsl.Sample(loadgen.SampleIndex(i))
			if !ok {
				t.Fatalf("sample %d not loaded", i)
			}
			x = append([]float32(nil), x...)
			change(x)
			am, err := m.Classify(ctx, x, 1)
			if err != nil {
				t.Fatal(err)
			}
			if int(label(am[0])) == labels[i] {
				right++
			}
		}
		switch {
		case name == "as preprocessed" && right != n:
			t.Errorf("%s: %d of %d right, want all", name, right, n)
		case name != "as preprocessed" && right != 0:
			t.Errorf("%s: %d of %d still right; the model would not catch it", name, right, n)
		}
	}
}
