package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/imagenet"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/models/resnet50"
	"github.com/mlperf-go/inference/onnx"
)

// writeMeanModel writes a small model with ResNet50's I/O contract (input
// name configurable): ArgMax over the three channel means, so an image
// whose channel c is brightest is classified c.
func writeMeanModel(t *testing.T, path, input string) {
	t.Helper()
	g := onnx.NewGraph(onnx.Config{Name: "mean-argmax", Opset: 13})
	x := g.Input(input, onnx.Float, onnx.Sym("N"), onnx.Fix(3), onnx.Fix(224), onnx.Fix(224))
	m := g.ReduceMean(x, []int64{2, 3}, false)
	am := g.ArgMax(m, 1, false)
	g.Node("Identity", []string{am}, []string{resnet50.ArgMaxName})
	g.Output(resnet50.ArgMaxName, onnx.Int64, onnx.Sym("N"))
	g.Node("Identity", []string{m}, []string{resnet50.SoftmaxName})
	g.Output(resnet50.SoftmaxName, onnx.Float, onnx.Sym("N"), onnx.Fix(3))
	if err := g.Err(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResNet50ModelOnORT(t *testing.T) {
	orttest.Need(t)
	path := filepath.Join(t.TempDir(), "mean.onnx")
	writeMeanModel(t, path, resnet50.InputName)
	sess, err := ort.Open(path, ort.Options{Provider: "cpu", IntraOpThreads: 1, Outputs: []string{resnet50.ArgMaxName}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	imgs := map[loadgen.SampleIndex][]float32{}
	for i := range 3 { // sample i has channel i brightest
		x := make([]float32, resnet50.SampleLen)
		for k := range 224 * 224 {
			x[i*224*224+k] = 1
		}
		imgs[loadgen.SampleIndex(i)] = x
	}
	m, err := resnet50.New(sess, func(i loadgen.SampleIndex) ([]float32, bool) { x, ok := imgs[i]; return x, ok })
	if err != nil {
		t.Fatal(err)
	}
	for _, idx := range [][]loadgen.SampleIndex{{2}, {0, 1, 2, 1}} {
		out := make([]loadgen.Response, len(idx))
		if err := m.Predict(context.Background(), idx, out); err != nil {
			t.Fatal(err)
		}
		for k, i := range idx {
			got, err := resnet50.DecodeResponse(out[k].Data)
			if err != nil || got != int(i)-1 { // label = ArgMax − 1
				t.Fatalf("sample %d: label %d, %v; want %d", i, got, err, int(i)-1)
			}
		}
	}
}

// TestMain lets a test run the mlperf command in a child process, with an
// environment of its own (the ONNX Runtime library loads once per
// process).
func TestMain(m *testing.M) {
	switch os.Getenv("MLPERF_TEST_CHILD") {
	case "1":
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
	case "delay-relay":
		os.Exit(delayRelay(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runMlperf runs mlperf args and returns its exit code and its output
// (stdout and stderr together). It runs in-process, with env's
// MLPERF_CACHE_DIR set for the test; any other variable (the ONNX Runtime
// library's path, which loads once per process) runs it in a child
// process instead.
func runMlperf(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != "MLPERF_CACHE_DIR" {
			return runProcess(t, env, args...)
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out syncBuffer
	code := runMain(args, &out, &out)
	return code, out.String()
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a
// command's result lines and its progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runProcess runs mlperf args in a child process with env added to the
// environment and returns its exit code and output.
func runProcess(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "MLPERF_TEST_CHILD=1"), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "panic:") || strings.Contains(string(out), "goroutine ") {
		t.Fatalf("child panicked:\n%s", out)
	}
	return code, string(out)
}

func TestRunResNet50BadInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if code, out := runMlperf(t, nil, "dataset", "synth", "imagenet", "-o", data, "-n", "2"); code != 0 {
		t.Fatalf("synth: %d %s", code, out)
	}
	good := filepath.Join(dir, "good.onnx")
	wrong := filepath.Join(dir, "wrong.onnx")
	trunc := filepath.Join(dir, "trunc.onnx")
	writeMeanModel(t, good, resnet50.InputName)
	writeMeanModel(t, wrong, "images")
	b, _ := os.ReadFile(good)
	os.WriteFile(trunc, b[:len(b)/2], 0o644)
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	run := []string{"run", "resnet50", "--data", data, "--out", filepath.Join(dir, "out")}
	checkBadRuns(t, env, run, []badRun{
		{"unknown backend", []string{"--model", good, "--backend", "rocm"}, 2, `unknown backend "rocm"`, false, nil},
		{"unknown scenario", []string{"--model", good, "--scenario", "Batch"}, 2, "unknown scenario", false, nil},
		{"missing model", []string{"--model", filepath.Join(dir, "nope.onnx")}, 1, "download_model.sh", false, nil},
		{"missing data", []string{"--model", good, "--data", filepath.Join(dir, "nodata")}, 1, "val_map.txt", false, nil},
		{"missing ORT library", []string{"--model", good}, 1, "libonnxruntime.so.1", false, []string{"ONNXRUNTIME_SHARED_LIBRARY_PATH=" + filepath.Join(dir, "libonnxruntime.so.1")}},
		{"wrong model inputs", []string{"--model", wrong}, 1, `want exactly one input "input_tensor:0"`, true, nil},
		{"truncated model", []string{"--model", trunc}, 1, "trunc.onnx", true, nil},
		{"cuda without its libraries", []string{"--model", good, "--backend", "cuda"}, 1, "cuda", true, nil},
	})
}

// badRun is one bad command line of a table: base's command plus args
// must exit with code and print want; ort marks cases that need the ONNX
// Runtime library, env variables of their own.
type badRun struct {
	name string
	args []string
	code int
	want string
	ort  bool
	env  []string
}

// checkBadRuns runs each case as a subtest of base + args with env.
func checkBadRuns(t *testing.T, env, base []string, cases []badRun) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ort {
				orttest.Need(t)
			}
			code, out := runMlperf(t, append(slices.Clone(env), tc.env...), append(slices.Clone(base), tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want %d with %q; output:\n%s", code, tc.code, tc.want, out)
			}
		})
	}
}

// The whole path: data set, model, harness, loadgen in accuracy mode, the
// accuracy log and its top-1 score. The mean model's predictions are
// computed independently here from the preprocessed images.
func TestRunResNet50AccuracyEndToEnd(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if code, out := runMlperf(t, nil, "dataset", "synth", "imagenet", "-o", data, "-n", "6"); code != 0 {
		t.Fatalf("synth: %d %s", code, out)
	}
	model := filepath.Join(dir, "mean.onnx")
	writeMeanModel(t, model, resnet50.InputName)
	out := filepath.Join(dir, "out")
	code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")},
		"run", "resnet50", "--mode", "accuracy", "--model", model, "--data", data, "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, log)
	}
	ds, err := imagenet.Load(data, imagenet.Options{Warn: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	good := 0
	for i := 0; i < ds.Len(); i++ {
		x, err := resnet50.Preprocess(ds.ImagePath(i))
		if err != nil {
			t.Fatal(err)
		}
		n := len(x) / 3
		best, bestMean := 0, -1e30
		for c := 0; c < 3; c++ {
			var s float64
			for _, v := range x[c*n : (c+1)*n] {
				s += float64(v)
			}
			if s/float64(n) > bestMean {
				best, bestMean = c, s/float64(n)
			}
		}
		if best-1 == ds.Label(i) {
			good++
		}
	}
	want := fmt.Sprintf("accuracy=%.3f%%, good=%d, total=6", 100*float64(good)/6, good)
	got, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != want {
		t.Fatalf("accuracy.txt %q, want %q", got, want)
	}
	if !strings.Contains(log, want) {
		t.Fatalf("the score is not printed:\n%s", log)
	}
}
