package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/internal/outlock"
	"github.com/mlperf-go/inference/onnx"
)

// Conf files that are not small regular files are refused, naming the
// file and what it is, never read without end (/dev/zero) or waited on
// (a FIFO without a writer).
func TestConfFilesMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "user.conf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	big := filepath.Join(dir, "big.conf")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	checkBadRuns(t, env, []string{"loadgen", "--out", filepath.Join(dir, "out")}, []badRun{
		{"user.conf /dev/zero", []string{"--user-conf", "/dev/zero"}, 1, "user conf /dev/zero is a character device", false, nil},
		{"user.conf a FIFO", []string{"--user-conf", fifo}, 1, "user conf " + fifo + " is a named pipe (FIFO), not a regular file; give a file", false, nil},
		{"audit.config /dev/zero", []string{"--audit-conf", "/dev/zero"}, 1, "audit config /dev/zero is a character device", false, nil},
		{"user.conf of 2 MiB", []string{"--user-conf", big}, 1, "it is 2097152 bytes, and such a file is at most 1048576", false, nil},
	})
	checkBadRuns(t, env, []string{"run", "resnet50", "--model", "synthetic:tiny", "--data", "synthetic", "--out", filepath.Join(dir, "run")}, []badRun{
		{"run --audit-conf a FIFO", []string{"--audit-conf", fifo}, 2, "--audit-conf " + fifo + " is a named pipe (FIFO)", false, nil},
		{"run --user-conf /dev/zero", []string{"--user-conf", "/dev/zero"}, 2, "--user-conf /dev/zero is a character device", false, nil},
	})
}

// editJSON rewrites a JSON file through edit.
func editJSON(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// `dataset verify openimages` names the annotation-file faults
// pycocotools passes silently, and a score with nothing to score says so
// beside the reference's mAP=-100.000%.
func TestOpenImagesAnnotationFaults(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "oi")
	if code, out := runMlperf(t, nil, "dataset", "synth", "openimages", "-o", data, "-n", "2"); code != 0 {
		t.Fatalf("synth: %d %s", code, out)
	}
	ann := filepath.Join(data, "annotations", "openimages-mlperf.json")
	good, _ := os.ReadFile(ann)
	editJSON(t, ann, func(m map[string]any) {
		m["images"].([]any)[1].(map[string]any)["id"] = 1.0
		m["categories"] = append(m["categories"].([]any), map[string]any{"id": 264.0, "name": "Spaceship"})
	})
	code, out := runMlperf(t, nil, "dataset", "verify", "openimages", "--data", data, "-n", "2")
	for _, want := range []string{"image id 1 is given to both", `category 264 ("Spaceship") is outside the 264 MLPerf OpenImages classes`, "does not verify"} {
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("verify: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	// No ground truth in the scored image: -1, said plainly.
	os.WriteFile(ann, good, 0o644)
	editJSON(t, ann, func(m map[string]any) { m["annotations"] = []any{} })
	rec := make([]byte, 0, 28)
	for _, v := range []float32{0, 0.1, 0.1, 0.5, 0.5, 0.9, 3} {
		rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(v))
	}
	log := filepath.Join(dir, "mlperf_log_accuracy.json")
	os.WriteFile(log, []byte(fmt.Sprintf("[\n{ \"seq_id\" : 0, \"qsl_idx\" : 0, \"data\" : \"%X\" }\n]\n", rec)), 0o644)
	code, out = runMlperf(t, nil, "accuracy", "--metric", "coco", "--log", log, "--annotations", ann)
	if !strings.Contains(out, "mAP=-100.000%") || !strings.Contains(out, "warning: nothing could be scored: none of the 1 evaluated images has a ground-truth box") {
		t.Errorf("undefined mAP: exit %d\n%s", code, out)
	}
}

// sharedCache is the synthetic models and data sets cache these tests
// share (built once per machine, as the serve tests' cache is).
func sharedCache() []string {
	return []string{"MLPERF_CACHE_DIR=" + filepath.Join(os.TempDir(), "mlperf-go-test-cache")}
}

// A batch whose samples cannot fit in memory at once is refused before
// anything is allocated for it, with the arithmetic, on every benchmark
// (the IO-based estimate, or the benchmark's own: decoder caches, BERT's
// attention), on a remote KServe node and on a remote OpenAI server.
func TestBatchMemoryGuardOnEveryPath(t *testing.T) {
	orttest.Need(t)
	env := sharedCache()
	dir := t.TempDir()
	for b, batch := range map[string]string{
		"resnet50": "20000", "bert": "100000", "gptj": "100000", "llama2": "100000", "unet3d": "100000",
		// Their one-sample working sets are small (DLRM's rows are capped
		// by its row budget): only an absurd batch is refused.
		"dlrm": "100000000", "sdxl": "100000000",
	} {
		t.Run(b, func(t *testing.T) {
			code, out := runMlperf(t, env, "run", b, "--model", "synthetic:tiny", "--data", "synthetic", "--batch", batch, "--out", filepath.Join(dir, b))
			if code != 2 || !strings.Contains(out, "--batch "+batch+": too large for this machine: "+batch+" samples at once × ") || !strings.Contains(out, "samples fit at once") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
	// RetinaNet takes one image per call: its fixed batch is the guard.
	code, out := runMlperf(t, env, "run", "retinanet", "--model", "synthetic:tiny", "--data", "synthetic", "--batch", "100000", "--out", filepath.Join(dir, "retinanet"))
	if code != 2 || !strings.Contains(out, "takes one image per call") {
		t.Errorf("retinanet: exit %d:\n%s", code, out)
	}
	t.Run("kserve", func(t *testing.T) {
		addr := startServeChild(t, env, "resnet50", "--sut", "null", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1")
		code, out := runMlperf(t, env, "run", "resnet50", "--backend", "kserve", "--endpoint", addr, "--batch", "20000", "--out", filepath.Join(dir, "kserve"))
		if code != 2 || !strings.Contains(out, "--batch 20000 × --workers 16: too large for this machine") || !strings.Contains(out, "one sample taken as 8 × its") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("openai", func(t *testing.T) {
		needLlamaTokenizer(t)
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"data":[{"id":"llama2"}]}`)
		}))
		defer hs.Close()
		code, out := runMlperf(t, env, "run", "llama2", "--backend", "openai", "--endpoint", hs.URL, "--data", "synthetic", "--batch", "100000", "--out", filepath.Join(dir, "openai"))
		if code != 2 || !strings.Contains(out, "--batch 100000: too large for this machine") || !strings.Contains(out, "one request in flight holding up to") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
}

// Flags that would do nothing are refused with the reason.
func TestFlagsThatDoNothingAreRefused(t *testing.T) {
	dir := t.TempDir()
	env := sharedCache()
	run := []string{"run", "resnet50", "--model", "synthetic:tiny", "--data", "synthetic"}
	checkBadRuns(t, env, run, []badRun{
		{"--out empty", []string{"--out", ""}, 2, "--out is empty; name the folder for the run's logs", false, nil},
		{"--workers 100000", []string{"--workers", "100000", "--out", filepath.Join(dir, "w")}, 2, "--workers 100000: more concurrent inference calls than this machine can run", false, nil},
		{"--api-key-env with cpu", []string{"--api-key-env", "HOME", "--out", filepath.Join(dir, "k")}, 2, "--api-key-env needs --backend kserve, openai or sglang (a remote engine); with --backend cpu it would do nothing", false, nil},
		{"--served-model with cpu", []string{"--served-model", "m", "--out", filepath.Join(dir, "s")}, 2, "--served-model needs --backend kserve, openai or sglang", false, nil},
		{"--api-key-env with kserve", []string{"--backend", "kserve", "--endpoint", "127.0.0.1:1", "--api-key-env", "HOME", "--out", filepath.Join(dir, "ks")}, 2, "--api-key-env is sent only by --backend openai", false, nil},
		{"--workers 100000 remote", []string{"--backend", "kserve", "--endpoint", "127.0.0.1:1", "--workers", "100000", "--out", filepath.Join(dir, "kw")}, 2, "more requests in flight than 1 endpoint(s) can take (at most 1024 each)", false, nil},
	})
	checkBadRuns(t, env, []string{"loadgen"}, []badRun{
		{"loadgen --out empty", []string{"--out", ""}, 2, "--out is empty", false, nil},
	})
	checkBadRuns(t, env, []string{"serve", "resnet50", "--listen", "127.0.0.1:0"}, []badRun{
		{"serve --max-batch -1", []string{"--max-batch", "-1"}, 2, "--max-batch -1: want at least 1 sample per request", false, nil},
		{"serve --max-conns 0 is the default, -1 refused", []string{"--max-conns", "-1"}, 2, "--max-conns -1", false, nil},
	})
	// A model whose input has a zero dimension: every request would be
	// empty.
	t.Run("serve a zero-dimension model", func(t *testing.T) {
		orttest.Need(t)
		path := filepath.Join(dir, "zero.onnx")
		g := onnx.NewGraph(onnx.Config{Name: "zero", Opset: 13})
		x := g.Input("x", onnx.Float, onnx.Sym("N"), onnx.Fix(0))
		g.Node("Identity", []string{g.ReduceMean(x, []int64{1}, false)}, []string{"y"})
		g.Output("y", onnx.Float, onnx.Sym("N"))
		var buf bytes.Buffer
		if _, err := g.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, buf.Bytes(), 0o644)
		code, out := runMlperf(t, env, "serve", "resnet50", "--sut", "null", "--model", path, "--listen", "127.0.0.1:0", "--threads", "1")
		if code == 0 || !strings.Contains(out, `input "x" has shape [N,0]: a dimension of 0 makes every input empty`) {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
}

// A second run into an output folder another run holds is refused,
// naming the holder's process; a full disk fails the run naming the log.
func TestOutputFolderLockAndFullDisk(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "held")
	os.MkdirAll(held, 0o755)
	l, err := outlock.Acquire(held)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("held by another run (process %d is writing its logs there); wait for it to end or give another --out", os.Getpid())
	checkBadRuns(t, sharedCache(), nil, []badRun{
		{"loadgen", []string{"loadgen", "--out", held}, 1, want, false, nil},
		{"run", []string{"run", "resnet50", "--model", "synthetic:tiny", "--data", "synthetic", "--out", held}, 1, want, true, nil},
	})
	l.Release()
	if code, out := runMlperf(t, nil, "loadgen", "--out", held, "--scenario", "Offline"); code != 0 {
		t.Errorf("after the holder released the folder: exit %d\n%s", code, out)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	full := filepath.Join(dir, "full")
	os.MkdirAll(full, 0o755)
	os.Symlink("/dev/full", filepath.Join(full, "mlperf_log_summary.txt"))
	code, out := runMlperf(t, nil, "loadgen", "--out", full, "--scenario", "Offline")
	if code != 1 || !strings.Contains(out, "writing "+filepath.Join(full, "mlperf_log_summary.txt")+": ") || !strings.Contains(out, "no space left on device") {
		t.Errorf("a full disk: exit %d\n%s", code, out)
	}
}

// `mlperf run llama2 --backend openai --completion-timeout 1s` against a
// server that holds its streams open ends at the timeout, INVALID, and
// the process does not wait for the streams' own (10-minute) limit.
func TestRunEndsPromptlyAfterTheCompletionTimeout(t *testing.T) {
	needLlamaTokenizer(t)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"llama2"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": held open\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer hs.Close()
	done := make(chan struct{})
	var code int
	var out string
	go func() {
		defer close(done)
		code, out = runMlperf(t, sharedCache(), "run", "llama2", "--backend", "openai", "--endpoint", hs.URL, "--data", "synthetic",
			"--scenario", "Offline", "--completion-timeout", "1s", "--duration", "1s", "--min-queries", "1", "--out", filepath.Join(t.TempDir(), "out"))
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end within 2 minutes of a 1 s completion timeout")
	}
	if !strings.Contains(out, "INVALID") || !strings.Contains(out, "completion timeout") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// The vague messages of the audit now say what is wrong, where, and the
// fix.
func TestVagueMessagesSayTheFix(t *testing.T) {
	checkBadRuns(t, nil, []string{"compliance"}, []badRun{
		{"unknown compliance test", []string{"test99", "resnet50", "--results", t.TempDir()}, 2, `unknown compliance test "test99": this suite runs test01, test04 and test06`, false, nil},
		{"missing --results", []string{"test01", "resnet50"}, 2, "test01 resnet50: --results DIR is required: the submission's scenario folder", false, nil},
		{"verify without --compliance", []string{"verify", "test01", "--results", t.TempDir()}, 2, "verify TEST01: --compliance DIR is required", false, nil},
	})
	t.Run("served model name", func(t *testing.T) {
		orttest.Need(t)
		env := sharedCache()
		addr := startServeChild(t, env, "resnet50", "--sut", "null", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1")
		code, out := runMlperf(t, env, "run", "resnet50", "--backend", "kserve", "--endpoint", addr, "--served-model", "resnet", "--out", filepath.Join(t.TempDir(), "o"))
		if code != 1 || !strings.Contains(out, `model "resnet" is not served here (this node serves resnet50)`) || !strings.Contains(out, "name the node's model with --served-model NAME, or serve resnet50's model there (mlperf serve resnet50)") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
}

// A password in --endpoint and an API key never reach stderr, stdout or
// the logs of a run.
func TestCredentialsStayOutOfMessagesAndLogs(t *testing.T) {
	orttest.Need(t)
	env := sharedCache()
	addr := startServeChild(t, env, "resnet50", "--sut", "null", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1")
	out := filepath.Join(t.TempDir(), "o")
	code, log := runMlperf(t, env, "run", "resnet50", "--backend", "kserve", "--endpoint", "http://user:s3cretpw@"+addr,
		"--mode", "accuracy", "--count", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, log)
	}
	if strings.Contains(log, "s3cretpw") || !strings.Contains(log, "user:xxxxx@") {
		t.Errorf("the password reaches the output:\n%s", log)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(out, e.Name()))
		if bytes.Contains(b, []byte("s3cretpw")) {
			t.Errorf("%s holds the password", e.Name())
		}
	}
}
