//go:build cgo

package retinanet

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/datasets/openimages"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// writeModel writes a small, fast graph with the given input and, when
// outputs, the contract's outputs: ten detections read off the input
// (enough for the contract check and for exercising the harness).
func writeModel(t *testing.T, input string, batch int64, side int64, outputs bool) string {
	t.Helper()
	g := onnx.NewGraph(onnx.Config{Name: "wrong"})
	x := g.Input(input, onnx.Float, onnx.Fix(batch), onnx.Fix(3), onnx.Fix(side), onnx.Fix(side))
	if outputs {
		// Ten "detections": the first 40 input values as boxes.
		flat := g.SliceConst(g.ReshapeTo(x, -1, 4), []int64{0}, []int64{10}, []int64{0})
		g.Node("Identity", []string{flat}, []string{boxesName})
		s := g.ReduceMax(flat, []int64{1}, false)
		g.Node("Identity", []string{s}, []string{scoresName})
		g.Node("ArgMax", []string{flat}, []string{labelsName}, onnx.IntAttr("axis", 1), onnx.IntAttr("keepdims", 0))
		g.Output(boxesName, onnx.Float, onnx.Sym("K"), onnx.Fix(4))
		g.Output(scoresName, onnx.Float, onnx.Sym("K"))
		g.Output(labelsName, onnx.Int64, onnx.Sym("K"))
	} else {
		g.Node("ArgMax", []string{g.Flatten(x, 1)}, []string{"ArgMax:0"}, onnx.IntAttr("axis", 1), onnx.IntAttr("keepdims", 0))
		g.Output("ArgMax:0", onnx.Int64, onnx.Fix(batch))
	}
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}

func runOpts(model, data string, batch int) benchmark.Options {
	return benchmark.Options{Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Model: model, Data: data, Backend: "cpu", Batch: batch}
}

func TestRunRejectsBadInputs(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	data := t.TempDir()
	if err := openimages.Synth(data, openimages.SynthConfig{N: 2, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	malformed := t.TempDir()
	openimages.Synth(malformed, openimages.SynthConfig{N: 1, Seed: 5})
	os.WriteFile(filepath.Join(malformed, openimages.AnnotationsPath), []byte(`{"images": [`), 0o644)
	for name, c := range map[string]struct {
		o    benchmark.Options
		want string
		is   error
	}{
		"resnet50-like model": {o: runOpts(writeModel(t, "input_tensor:0", 1, 224, false), data, 0), want: `want exactly one input "images"`, is: errContract},
		"wrong input size":    {o: runOpts(writeModel(t, inputName, 1, 224, true), data, 0), want: "want float32 [1 3 800 800]", is: errContract},
		"model of batch 8":    {o: runOpts(writeModel(t, inputName, 8, 800, true), data, 0), want: "has batch size 8", is: errContract},
		"--batch 8":           {o: runOpts("synthetic:tiny", data, 8), want: "--batch 8: the RetinaNet model takes one image per call"},
		"malformed json":      {o: runOpts("synthetic:tiny", malformed, 0), want: "is not a valid COCO annotation file"},
		"no data set":         {o: runOpts("synthetic:tiny", t.TempDir(), 0), want: "no annotation file", is: openimages.ErrNoAnnotations},
		"no model file":       {o: runOpts(filepath.Join(t.TempDir(), "resnext50_32x4d_fpn.onnx"), data, 0), want: "download_model.sh"},
	} {
		t.Run(name, func(t *testing.T) {
			c.o.Out = t.TempDir()
			var stdout, stderr bytes.Buffer
			_, err := benchmark.Run(context.Background(), descriptor, c.o, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestRunMissingImages: images missing from the folder are skipped and
// reported as the reference's loader does, and the run scores the rest.
func TestRunMissingImages(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", t.TempDir())
	data := t.TempDir()
	openimages.Synth(data, openimages.SynthConfig{N: 3, Seed: 5})
	ds, err := openimages.Load(data, openimages.Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(ds.ImagePath(0))
	o := runOpts(writeModel(t, inputName, 1, inputSize, true), data, 0)
	o.Out = t.TempDir()
	var stdout, stderr bytes.Buffer
	if _, err := benchmark.Run(context.Background(), descriptor, o, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "1 of the 3 images") || !strings.Contains(stderr.String(), "retinanet: 2 images") || !strings.Contains(stdout.String(), "mAP=") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}
