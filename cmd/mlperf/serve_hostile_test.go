package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/remote/kserve"
)

// vmHWM is a process's peak resident set in bytes (VmHWM of
// /proc/PID/status).
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc status to read the peak memory from: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// hostilePost sends head on a new connection, then up to send bytes of
// body (chunked in 16 KiB chunks if chunked) until the server stops
// reading, and returns the answer's status.
func hostilePost(addr, head string, send int64, chunked bool) (int, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := io.WriteString(c, head); err != nil {
		return 0, err
	}
	go func() {
		buf := make([]byte, 16<<10)
		var frame []byte
		if chunked {
			frame = append(append([]byte(strconv.FormatInt(int64(len(buf)), 16)+"\r\n"), buf...), "\r\n"...)
		} else {
			frame = buf
		}
		for sent := int64(0); sent < send; sent += int64(len(buf)) {
			if _, err := c.Write(frame); err != nil {
				return // the server answered and closed
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestServeBoundsHostileBodies: `mlperf serve resnet50` (a child process,
// null engine, --max-batch 1 and the default) under 100 connections that each claim a
// 1 GiB body, 10 that send 600 MB with that Content-Length and 10 that
// send 600 MB chunked: every one is answered 413, the node stays up and
// serves a good request after, and its peak resident memory grows by no
// more than its stated memory budget (kserve.MemoryFactor × --slots ×
// (largest request + largest answer)) plus 48 MiB for 120 connections'
// goroutines and buffers and the garbage collector's headroom.
func TestServeBoundsHostileBodies(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	// The bound is measured on what users run: under the race detector
	// (make test) the child is an mlperf built without it, whose shadow
	// memory would multiply the figure.
	bin := os.Args[0]
	if raceEnabled {
		bin = filepath.Join(dir, "mlperf")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/mlperf-go/inference/cmd/mlperf").CombinedOutput(); err != nil {
			t.Fatalf("building mlperf without the race detector: %v\n%s", err, out)
		}
	}
	for _, maxBatch := range []int{1, 0} {
		t.Run(fmt.Sprintf("max-batch=%d", maxBatch), func(t *testing.T) { hostileBodies(t, bin, env, maxBatch) })
	}
}

func hostileBodies(t *testing.T, bin string, env []string, maxBatch int) {
	addr, cmd := startServeBinary(t, bin, nil, env, "resnet50", "--sut", "null", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--max-batch", strconv.Itoa(maxBatch), "--slots", "1")
	ctx := context.Background()
	sess, err := kserve.Dial(ctx, kserve.Config{Endpoint: addr, Model: "resnet50"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	x := []backend.Tensor{{Name: "input_tensor:0", DType: backend.Float32, Shape: []int64{1, 3, 224, 224}, Data: make([]float32, 3*224*224)}}
	if _, err := sess.Run(ctx, x); err != nil {
		t.Fatalf("a good request before: %v", err)
	}
	// The node's budget, by the formula it applies.
	ref := kserve.NewServer("ref", "1")
	ref.MaxBatch = maxBatch
	if err := ref.Add("resnet50", &kserve.NullSession{In: sess.Inputs(), Out: sess.Outputs()}, 1); err != nil {
		t.Fatal(err)
	}
	budget := ref.MemoryBudget()
	base := vmHWM(t, cmd.Process.Pid)

	const infer = "POST /v2/models/resnet50/infer HTTP/1.1\r\nHost: node\r\nContent-Type: application/octet-stream\r\n" + kserve.HeaderLength + ": 200\r\n"
	type attack struct {
		n       int
		head    string
		send    int64
		chunked bool
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[string]map[int]int{}
	for name, a := range map[string]attack{
		"claims 1 GiB":       {100, infer + "Content-Length: 1073741824\r\n\r\n", 1 << 20, false},
		"sends 600 MB":       {10, infer + "Content-Length: 600000000\r\n\r\n", 600e6, false},
		"sends 600 MB chunk": {10, infer + "Transfer-Encoding: chunked\r\n\r\n", 600e6, true},
	} {
		byCode := map[int]int{}
		codes[name] = byCode
		for range a.n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, err := hostilePost(addr, a.head, a.send, a.chunked)
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
				mu.Lock()
				byCode[code]++
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	for name, c := range codes {
		if len(c) != 1 || c[http.StatusRequestEntityTooLarge] == 0 {
			t.Errorf("%s: answers by status %v, want 413 to every one", name, c)
		}
	}
	if _, err := sess.Run(ctx, x); err != nil {
		t.Errorf("a good request after: %v", err)
	}
	peak := vmHWM(t, cmd.Process.Pid)
	const slack = 48 << 20
	t.Logf("mlperf serve resnet50 --max-batch %d (%d samples) --slots 1: peak RSS %.1f MiB before, %.1f MiB after 120 hostile requests (+%.1f MiB); budget %.2f MiB + %d MiB slack",
		maxBatch, ref.MaxBatchOf("resnet50"), float64(base)/(1<<20), float64(peak)/(1<<20), float64(peak-base)/(1<<20), float64(budget)/(1<<20), slack>>20)
	if peak-base > budget+slack {
		t.Errorf("peak RSS grew by %d bytes, over the budget %d + %d", peak-base, budget, slack)
	}
}
