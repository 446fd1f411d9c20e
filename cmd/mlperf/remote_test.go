package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
)

// startServeChild runs `mlperf serve args...` in a child process and
// returns the address it serves on; the child gets SIGTERM at cleanup and
// must exit 0 (a graceful drain).
func startServeChild(t *testing.T, env []string, args ...string) string {
	t.Helper()
	addr, _ := startServeChildIn(t, nil, env, args...)
	return addr
}

// startServeChildIn is startServeChild with the child started through
// prefix (e.g. ip netns exec NS); it also returns the child.
func startServeChildIn(t *testing.T, prefix, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	return startServeBinary(t, os.Args[0], prefix, env, args...)
}

// startServeBinary is startServeChildIn running bin (this test binary, or
// a built mlperf) as the child.
func startServeBinary(t *testing.T, bin string, prefix, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	argv := append(append(slices.Clone(prefix), bin, "serve"), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "MLPERF_TEST_CHILD=1"), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "http://"); ok {
				addrc <- rest[:strings.Index(rest, "/")]
			}
		}
		close(addrc)
	}()
	var addr string
	select {
	case a, ok := <-addrc:
		if !ok {
			cmd.Wait()
			t.Fatalf("mlperf serve exited before listening: %s", stderr.String())
		}
		addr = a
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("mlperf serve did not listen within 2 minutes: %s", stderr.String())
	}
	t.Cleanup(func() {
		if cmd.ProcessState != nil {
			return // the test ended it
		}
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mlperf serve after SIGTERM: %v (want a graceful exit 0)\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("mlperf serve did not exit within 30 s of SIGTERM")
		}
	})
	return addr, cmd
}

// TestServeAndRunOverKServe is the CLI wiring of the Network division: a
// `mlperf serve resnet50` node and `mlperf run resnet50 --backend kserve
// --endpoint` as the LoadGen node, each its own process.
func TestServeAndRunOverKServe(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	addr := startServeChild(t, env, "resnet50", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--name", "node-a")
	out := filepath.Join(dir, "out")
	code, log := runProcess(t, env, "run", "resnet50", "--backend", "kserve", "--endpoint", addr, "--served-model", "resnet50",
		"--mode", "accuracy", "--count", "8", "--out", out)
	if code != 0 {
		t.Fatalf("run over kserve: exit %d\n%s", code, log)
	}
	for _, want := range []string{"model resnet50 served at " + addr, "accuracy="} {
		if !strings.Contains(log, want) {
			t.Errorf("output lacks %q:\n%s", want, log)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "accuracy.txt")); err != nil {
		t.Error(err)
	}
	if detail, err := os.ReadFile(filepath.Join(out, "mlperf_log_detail.txt")); err != nil || !strings.Contains(string(detail), `"sut_name", "value": "Network SUT: node-a `) {
		t.Errorf("the detail log does not name the node as a Network SUT (%v)", err)
	}
	// A served model name the node does not have is refused at start.
	code, log = runProcess(t, env, "run", "resnet50", "--backend", "kserve", "--endpoint", addr, "--served-model", "nope", "--out", filepath.Join(dir, "out2"))
	if code != 1 || !strings.Contains(log, "nope") {
		t.Errorf("unknown served model: exit %d\n%s", code, log)
	}
}
