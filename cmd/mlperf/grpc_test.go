package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
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
		done <- serveCmd(ctx, []string{"resnet50", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--name", "grpc-node"}, w, os.Stderr)
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

// TestKServeGRPCNodeKilledMidRun: one of two gRPC nodes killed in the
// middle of a Server run: its samples fail as data, the run ends INVALID
// with the cause (the node) in the summary and the logs written, and
// nothing hangs.
func TestKServeGRPCNodeKilledMidRun(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	var eps []string
	var nodes []*exec.Cmd
	for _, name := range []string{"node-a", "node-b"} {
		addr, cmd := startServeChildIn(t, nil, env, "resnet50", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--name", name)
		eps = append(eps, "--endpoint", addr)
		nodes = append(nodes, cmd)
	}
	out := filepath.Join(dir, "out")
	argv := append([]string{"run", "resnet50", "--count", "16", "--out", out, "--backend", "kserve", "--protocol", "grpc",
		"--scenario", "Server", "--qps", "40", "--duration", "3s", "--min-queries", "1"}, eps...)
	cmd := exec.Command(os.Args[0], argv...)
	cmd.Env = append(append(os.Environ(), "MLPERF_TEST_CHILD=1"), env...)
	// Node b is killed 1.5 s after the run has dialled both nodes.
	log := &watchBuffer{want: "Network SUT: ", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		select {
		case <-log.seen:
			time.Sleep(1500 * time.Millisecond)
		case <-time.After(time.Minute):
		}
		nodes[1].Process.Kill()
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run with a node killed: %v\n%s", err, log.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the run hung after a node was killed:\n%s", log.String())
	}
	nodes[1].Wait()
	killed := eps[3]
	sum, err := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`the SUT reported an error for (\d+) samples`).FindSubmatch(sum)
	if !bytes.Contains(sum, []byte("Result is : INVALID")) || m == nil || string(m[1]) == "0" {
		t.Fatalf("summary after a node was killed:\n%s\n%s", sum, log.String())
	}
	if !bytes.Contains(sum, []byte("(the first: ")) || !bytes.Contains(sum, []byte(killed)) {
		t.Errorf("the summary does not give the cause (the failing node %s):\n%s", killed, sum)
	}
	det, err := os.ReadFile(filepath.Join(out, "mlperf_log_detail.txt"))
	if err != nil || !bytes.Contains(det, []byte("error_runtime")) || !bytes.Contains(det, []byte(killed)) {
		t.Errorf("the detail log does not name the failing node %s (%v)", killed, err)
	}
	if _, err := os.Stat(filepath.Join(out, "mlperf_log_accuracy.json")); err != nil {
		t.Error(err)
	}
	t.Logf("node-b killed 1.5 s into a 3 s Server run over gRPC: %s samples failed; the run ended INVALID", m[1])
}

// watchBuffer is a syncBuffer that closes seen once want was written.
type watchBuffer struct {
	syncBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchBuffer) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.syncBuffer.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
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
