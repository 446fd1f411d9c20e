//go:build cgo

package yolo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/coco2017"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// standIn writes a fast model with the export's I/O: output0 is the first
// 84·8400 input values (so class scores in [0, 1], tiny boxes), enough to
// exercise the harness, NMS and the response path.
func standIn(t *testing.T) string {
	t.Helper()
	g := onnx.NewGraph(onnx.Config{Name: "yolo_stand_in"})
	x := g.Input(inputName, onnx.Float, onnx.Fix(1), onnx.Fix(3), onnx.Fix(inputSize), onnx.Fix(inputSize))
	flat := g.SliceConst(g.ReshapeTo(x, -1), []int64{0}, []int64{outputLen}, []int64{0})
	g.Node("Reshape", []string{flat, g.Int64s(1, 4+numClasses, numAnchors)}, []string{outputName})
	g.Output(outputName, onnx.Float, onnx.Fix(1), onnx.Fix(4+numClasses), onnx.Fix(numAnchors))
	path := filepath.Join(t.TempDir(), "stand_in.onnx")
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunAccuracyTinySynthetic is `mlperf run yolo --model synthetic:tiny
// --data synthetic --mode accuracy`: the synthetic data set and model
// through the loadgen to accuracy-coco.py's summarize() table, mAP= line
// and --verbose counts.
func TestRunAccuracyTinySynthetic(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", testCache)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	o := benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: "synthetic:tiny", Data: "synthetic", Backend: "cpu", Out: out, Count: 4}
	if _, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr); err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	s := stdout.String()
	if !regexp.MustCompile(`(?m)^mAP=\d+\.\d{3}%\nfound 4 results\nfound 4 images\nfound \d images with no results\nignored 0 dupes$`).MatchString(s) {
		t.Errorf("stdout lacks the mAP= line and the counts after it:\n%s", s)
	}
	if !strings.Contains(s, " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = ") || !strings.Contains(s, benchmark.SyntheticNote) {
		t.Errorf("stdout lacks the summarize() table or the synthetic note:\n%s", s)
	}
	if acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt")); err != nil || !strings.Contains(string(acc), "mAP=") {
		t.Errorf("accuracy.txt = %q, %v", acc, err)
	}
	log, err := os.ReadFile(filepath.Join(out, "mlperf_log_accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), `"qsl_idx"`); n != 4 {
		t.Errorf("accuracy log has %d entries, want 4", n)
	}
}

// TestRunScenarios runs the stand-in model through each scenario in
// performance mode (short settings): LoadGen completes and reports the
// scenario.
func TestRunScenarios(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", testCache)
	model := standIn(t)
	for _, sc := range descriptor.Scenarios {
		t.Run(sc.String(), func(t *testing.T) {
			o := benchmark.Options{Scenario: sc, Mode: loadgen.PerformanceOnly, Model: model, Data: "synthetic", Backend: "cpu",
				Out: t.TempDir(), Duration: time.Millisecond, MinQueries: 2, QPS: 20}
			var stdout, stderr bytes.Buffer
			res, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if res.Scenario != sc || res.SampleCount == 0 || !strings.Contains(stdout.String(), "Scenario : "+sc.String()) {
				t.Errorf("result %+v\n%s", res, stdout.String())
			}
		})
	}
}

// TestAccuracyCommand is `mlperf accuracy yolo`: a log answering every
// synthetic image with its ground-truth boxes scores mAP=100.000%, in
// accuracy.txt too; a log whose records name another image, and one of
// another benchmark's shape, are reported or refused.
func TestAccuracyCommand(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", testCache)
	ds, err := loadData("synthetic", 0, "", benchmark.CacheDir(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	classOf := map[int64]int{}
	for k, id := range coco80To91 {
		classOf[int64(id)] = k
	}
	logOf := func(idxShift int) string {
		var log strings.Builder
		log.WriteString("[\n")
		for i, im := range ds.GT.Images {
			var dets []detection
			for _, a := range ds.GT.Annotations {
				if a.ImageID == im.ID {
					b := a.BBox
					dets = append(dets, detection{Box: [4]float32{float32(b[0]), float32(b[1]), float32(b[0] + b[2]), float32(b[1] + b[3])}, Score: 0.9, Class: classOf[a.CategoryID]})
				}
			}
			data, err := encodeResponse(nil, i+idxShift, dets, int(im.Width), int(im.Height))
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				log.WriteString(",\n")
			}
			fmt.Fprintf(&log, `{ "seq_id" : %d, "qsl_idx" : %d, "data" : "%X" }`, i, i, data)
		}
		log.WriteString("\n]\n")
		path := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
		os.WriteFile(path, []byte(log.String()), 0o644)
		return path
	}
	out := filepath.Join(t.TempDir(), "accuracy.txt")
	var stdout bytes.Buffer
	req := &benchmark.AccuracyRequest{Log: logOf(0), Data: "synthetic", Out: out}
	if _, err := benchmark.Accuracy(context.Background(), descriptor, req, &stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "mAP=100.000%") {
		t.Errorf("perfect log:\n%s", stdout.String())
	}
	if acc, _ := os.ReadFile(out); !strings.Contains(string(acc), "mAP=100.000%") {
		t.Errorf("accuracy.txt: %q", acc)
	}
	// Records carrying the next image's index: scored under the entry's
	// qsl_idx as accuracy-coco.py does, with the mismatch reported.
	var stderr bytes.Buffer
	sc, err := descriptor.Driver.Score(context.Background(), scoreRequest(logOf(1), &stderr))
	if err != nil || !strings.Contains(stderr.String(), "image index other than their qsl_idx") || !strings.Contains(sc.Lines[0], "mAP=100.000%") {
		t.Errorf("shifted indices: %v, %v\n%s", sc, err, stderr.String())
	}
	// An int64 log (another benchmark's) is refused by its shape.
	bad := filepath.Join(t.TempDir(), "mlperf_log_accuracy.json")
	os.WriteFile(bad, []byte(`[{ "seq_id" : 0, "qsl_idx" : 0, "data" : "0102030405" }]`), 0o644)
	stdout.Reset()
	if _, err := benchmark.Accuracy(context.Background(), descriptor, &benchmark.AccuracyRequest{Log: bad, Data: "synthetic"}, &stdout); err == nil {
		t.Errorf("a 5-byte response scored:\n%s", stdout.String())
	}
}

// TestRunRejectsBadInputs: a RetinaNet model, --batch 2 and --cache are
// refused before any sample is loaded, each naming the fix; a data set
// holding a truncated JPEG fails the run naming the file.
func TestRunRejectsBadInputs(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", testCache)
	g := onnx.NewGraph(onnx.Config{Name: "retinanet_contract"})
	x := g.Input("images", onnx.Float, onnx.Fix(1), onnx.Fix(3), onnx.Fix(800), onnx.Fix(800))
	flat := g.SliceConst(g.ReshapeTo(x, -1, 4), []int64{0}, []int64{10}, []int64{0})
	g.Node("Identity", []string{flat}, []string{"boxes"})
	g.Node("Identity", []string{g.ReduceMax(flat, []int64{1}, false)}, []string{"scores"})
	g.Node("ArgMax", []string{flat}, []string{"labels"}, onnx.IntAttr("axis", 1), onnx.IntAttr("keepdims", 0))
	g.Output("boxes", onnx.Float, onnx.Sym("K"), onnx.Fix(4))
	g.Output("scores", onnx.Float, onnx.Sym("K"))
	g.Output("labels", onnx.Int64, onnx.Sym("K"))
	retina := filepath.Join(t.TempDir(), "retinanet.onnx")
	if err := g.WriteFile(retina, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	opts := func(model string) benchmark.Options {
		return benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: model, Data: "synthetic", Backend: "cpu", Out: t.TempDir()}
	}
	_, err := benchmark.Run(context.Background(), descriptor, opts(retina), io.Discard, io.Discard)
	if !errors.Is(err, errContract) || !strings.Contains(err.Error(), "yolo export") {
		t.Errorf("RetinaNet model: %v", err)
	}
	o := opts(standIn(t))
	o.Batch = 2
	if _, err := benchmark.Run(context.Background(), descriptor, o, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "--batch 1") {
		t.Errorf("--batch 2: %v", err)
	}
	o = opts(standIn(t))
	o.Cache = t.TempDir()
	if _, err := benchmark.Run(context.Background(), descriptor, o, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "no preprocessed cache") {
		t.Errorf("--cache: %v", err)
	}

	data := t.TempDir()
	if err := coco2017.Synth(data, coco2017.SynthConfig{N: 3, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	ds, err := coco2017.Load(data, coco2017.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(ds.ImagePath(1))
	os.WriteFile(ds.ImagePath(1), b[:len(b)/2], 0o644)
	o = opts(standIn(t))
	o.Data = data
	if _, err := benchmark.Run(context.Background(), descriptor, o, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), ds.ImagePath(1)) {
		t.Errorf("truncated JPEG: %v", err)
	}
}

func scoreRequest(log string, stderr io.Writer) *spec.ScoreRequest {
	return &spec.ScoreRequest{Log: log, Data: "synthetic", CacheDir: benchmark.CacheDir(), Stderr: stderr}
}
