// Package ollamatest starts a real OpenAI-compatible serving engine for
// tests: ollama (built by make setup into .deps/ollama) serving a tiny
// Llama-architecture GGUF with seeded weights and the real Llama 2
// vocabulary (package llm/gguf), or a GGUF the test wrote (StartFile), on
// a loopback port. Tests skip, with the reason, when ollama is not
// installed.
package ollamatest

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/llm/gguf"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// Model is the name the tiny model is served under.
const Model = "tiny"

// Binary finds ollama where make setup installs it (internal/deps:
// $MLPERF_DEPS, a .deps folder at or above the working directory or
// beside the executable, the per-user folder) or on PATH; "" if neither
// has it.
func Binary() string {
	if p, err := deps.Find("ollama/ollama"); err == nil && fileExists(p) {
		return p
	}
	if p, err := exec.LookPath("ollama"); err == nil {
		return p
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// Start serves the tiny model (Model) from a real ollama on a loopback
// port with parallel request slots and returns its host:port. It skips t
// when ollama is absent; the server stops at t's cleanup, and its log is
// printed if t failed.
func Start(t testing.TB, tok *tokenizer.Llama, parallel int) string {
	t.Helper()
	if Binary() == "" {
		t.Skip("ollama is not installed (make setup installs it into .deps/ollama); skipping the real-engine test")
	}
	f, err := gguf.Llama(gguf.TinyLlama, tok, 1)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "tiny.gguf")
	out, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(out); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return StartFile(t, model, parallel)
}

// StartFile serves the GGUF at model as Model, as Start does; params are
// extra Modelfile lines ("PARAMETER repeat_penalty 1").
func StartFile(t testing.TB, model string, parallel int, params ...string) string {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("ollama is not installed (make setup installs it into .deps/ollama); skipping the real-engine test")
	}
	dir := t.TempDir()
	// TEMPLATE {{ .Prompt }}: the prompt goes to the model as sent, with no
	// chat template around it.
	mf := filepath.Join(dir, "Modelfile")
	body := "FROM " + model + "\nTEMPLATE {{ .Prompt }}\nPARAMETER num_ctx 1024\n"
	for _, p := range params {
		body += p + "\n"
	}
	if err := os.WriteFile(mf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	env := append(os.Environ(), "OLLAMA_HOST="+addr, "OLLAMA_MODELS="+filepath.Join(dir, "models"), "HOME="+dir,
		"OLLAMA_NUM_PARALLEL="+strconv.Itoa(max(parallel, 1)), "OLLAMA_NOPRUNE=1")
	srv := exec.Command(bin, "serve")
	srv.Env = env
	// ollama serve starts a runner process per model: both go in a
	// process group of their own, which cleanup ends as a whole.
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logPath := filepath.Join(dir, "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pg := -srv.Process.Pid
		syscall.Kill(pg, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		syscall.Kill(pg, syscall.SIGKILL) // a runner left behind
		<-done
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("ollama serve log:\n%s", b)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/version")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ollama serve did not answer on %s within 60 s", addr)
		}
		time.Sleep(200 * time.Millisecond)
	}
	create := exec.Command(bin, "create", Model, "-f", mf)
	create.Env = env
	if b, err := create.CombinedOutput(); err != nil {
		t.Fatalf("ollama create: %v\n%s", err, b)
	}
	return addr
}

// Complete asks the server at addr for a greedy (temperature 0), not
// streamed /v1/completions of at most n tokens of prompt from Model and
// returns its text.
func Complete(t testing.TB, addr, prompt string, n int) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": Model, "prompt": prompt, "max_tokens": n, "temperature": 0})
	c := &http.Client{Timeout: 2 * time.Minute}
	resp, err := c.Post("http://"+addr+"/v1/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("completion: status %d, %v: %s", resp.StatusCode, err, b)
	}
	var out struct {
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Choices) != 1 {
		t.Fatalf("completion: %v: %s", err, b)
	}
	return out.Choices[0].Text
}
