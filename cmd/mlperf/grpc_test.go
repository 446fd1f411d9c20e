package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/serve"
)

// addrWriter hands on the address of the first "serving ... http://ADDR/"
// line written to it.
type addrWriter struct {
	once sync.Once
	addr chan string
}

func (w *addrWriter) Write(p []byte) (int, error) {
	if _, rest, ok := strings.Cut(string(p), "http://"); ok {
		if i := strings.Index(rest, "/"); i > 0 {
			w.once.Do(func() { w.addr <- rest[:i] })
		}
	}
	return len(p), nil
}

// TestRunOverKServeGRPCMatchesLocal: `mlperf run resnet50 --backend kserve
// --protocol grpc` against an in-process `mlperf serve resnet50` scores the
// same accuracy as the same model run locally, and names the node as a
// Network SUT.
func TestRunOverKServeGRPCMatchesLocal(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(dir, "cache"))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	w := &addrWriter{addr: make(chan string, 1)}
	done := make(chan error, 1)
	go func() {
		done <- serve.Main(ctx, []string{"resnet50", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--name", "grpc-node"}, w, os.Stderr)
	}()
	var addr string
	select {
	case addr = <-w.addr:
	case err := <-done:
		t.Fatalf("mlperf serve ended before listening: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("mlperf serve did not listen within 2 minutes")
	}
	common := []string{"--mode", "accuracy", "--count", "8", "--batch", "1"}
	local := filepath.Join(dir, "local")
	if code, log := runMlperf(t, env, append([]string{"run", "resnet50", "--model", "synthetic:tiny", "--threads", "1", "--out", local}, common...)...); code != 0 {
		t.Fatalf("local run: exit %d\n%s", code, log)
	}
	remote := filepath.Join(dir, "grpc")
	code, log := runMlperf(t, env, append([]string{"run", "resnet50", "--backend", "kserve", "--protocol", "grpc", "--endpoint", addr, "--out", remote}, common...)...)
	if code != 0 {
		t.Fatalf("run over gRPC: exit %d\n%s", code, log)
	}
	if !strings.Contains(log, "model resnet50 served at "+addr+" over gRPC") {
		t.Errorf("the run does not say it ran over gRPC:\n%s", log)
	}
	want, err := os.ReadFile(filepath.Join(local, "accuracy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(remote, "accuracy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(want), "accuracy=") || string(got) != string(want) {
		t.Errorf("accuracy over gRPC %q, locally %q", got, want)
	}
	// The synthetic model's predictions score nothing on synthetic data,
	// so the predictions themselves are compared, sample by sample.
	if l, r := predictions(t, local), predictions(t, remote); len(l) != 8 || !maps.Equal(l, r) {
		t.Errorf("predictions over gRPC %v, locally %v", r, l)
	}
	if detail, err := os.ReadFile(filepath.Join(remote, "mlperf_log_detail.txt")); err != nil || !strings.Contains(string(detail), `"sut_name", "value": "Network SUT: grpc-node `) {
		t.Errorf("the detail log does not name the node as a Network SUT (%v)", err)
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("mlperf serve after the shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("mlperf serve did not return within 30 s of the shutdown")
	}
}

// predictions reads a run's mlperf_log_accuracy.json as qsl_idx -> data.
func predictions(t *testing.T, out string) map[int]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "mlperf_log_accuracy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		QSLIdx int    `json:"qsl_idx"`
		Data   string `json:"data"`
	}
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatal(err)
	}
	m := map[int]string{}
	for _, e := range entries {
		m[e.QSLIdx] = e.Data
	}
	return m
}
