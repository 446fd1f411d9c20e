package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// needLlama3Tokenizer skips the test when make setup has not installed the
// Llama 3.1 tokenizer.
func needLlama3Tokenizer(t *testing.T) {
	t.Helper()
	if _, err := tokenizer.LoadLlama3(spec.DepsPath("llama3")); err != nil {
		t.Skipf("Llama 3.1 tokenizer not installed: %v", err)
	}
}

// llama3Run runs `mlperf run llama3.1-8b` on the tiny synthetic model and
// the synthetic data set.
func llama3Run(t *testing.T, cache string, args ...string) (int, string) {
	t.Helper()
	base := []string{"run", "llama3.1-8b", "--model", "synthetic:tiny", "--data", "synthetic", "--threads", "1"}
	return runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache, childRun}, append(base, args...)...)
}

// childRun makes runMlperf run the command in a child process: a decoder
// run allocates logits over the whole vocabulary at every step, and in the
// race-built test binary the memory of in-process runs added up past what
// a 24 GB machine holds beside other packages' tests; a child's is
// returned when it exits.
const childRun = "MLPERF_TEST_CHILD_RUN=1"

// rougeLine is evaluation.py's printed dict.
var rougeLine = regexp.MustCompile(`\{'rouge1': '[0-9.]+', 'rouge2': '[0-9.]+', 'rougeL': '[0-9.]+', 'rougeLsum': '[0-9.]+', 'gen_len': \d+, 'gen_num': (\d+)\}`)

// TestRunLlama3AccuracyVariants is the issue's done-when: `mlperf run
// llama3.1-8b --model synthetic:tiny --data synthetic --mode accuracy` as
// given (8 samples, 128 new tokens; at batch 2), then the edge (Offline and
// SingleStream) and interactive (Server) variants, reach evaluation.py's
// ROUGE line; `mlperf accuracy` prints the run's line again.
func TestRunLlama3AccuracyVariants(t *testing.T) {
	orttest.Need(t)
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	out := filepath.Join(dir, "dc")
	// --batch 2: every prefill holds logits for each prompt position over
	// the 128,256-id vocabulary (the optimum contract's [batch, seq,
	// vocab] output), 3.5 GB at the default batch of 8, several times
	// that under the race detector beside other packages' tests.
	code, log := llama3Run(t, cache, "--mode", "accuracy", "--batch", "2", "--out", out)
	m := rougeLine.FindStringSubmatch(log)
	if code != 0 || m == nil || m[1] != "8" || !strings.Contains(log, "accuracy not meaningful") {
		t.Fatalf("datacenter: exit %d\n%s", code, log)
	}
	if !strings.Contains(log, "1024 generated tokens") { // 8 samples × 128: the reference's limit
		t.Errorf("not 128 tokens per sample:\n%s", log)
	}
	acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if err != nil || !strings.Contains(string(acc), m[0]) {
		t.Errorf("accuracy.txt %q (%v) lacks %s", acc, err, m[0])
	}
	code, msg := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache}, "accuracy", "llama3.1-8b", "--log", out, "--data", "synthetic")
	if code != 0 || !strings.Contains(msg, m[0]) {
		t.Errorf("mlperf accuracy: exit %d, want %s:\n%s", code, m[0], msg)
	}
	for _, v := range [][]string{
		{"--model-name", "llama3_1-8b-edge", "--batch", "2"},
		{"--model-name", "llama3_1-8b-edge", "--scenario", "SingleStream"},
		{"--model-name", "llama3_1-8b-interactive", "--scenario", "Server", "--batch", "2"},
	} {
		args := append([]string{"--mode", "accuracy", "--count", "3", "--max-new-tokens", "8", "--out", filepath.Join(dir, strings.Join(v, "_"))}, v...)
		code, log := llama3Run(t, cache, args...)
		if m := rougeLine.FindStringSubmatch(log); code != 0 || m == nil || m[1] != "3" || !strings.Contains(log, "not a compliant run") {
			t.Errorf("%v: exit %d\n%s", v, code, log)
		}
	}
}

// TestRunLlama3InteractiveTEST06: a Server run with the interactive
// limits and TEST06's audit.config: first-token latencies in the
// summary, the interactive TTFT/TPOT bounds, and TEST06's checks with
// <|eot_id|> as the end-of-sequence id.
func TestRunLlama3InteractiveTEST06(t *testing.T) {
	orttest.Need(t)
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	audit, err := filepath.Abs(filepath.Join("..", "..", "models", "llama3", "test06_audit.config"))
	if err != nil {
		t.Fatal(err)
	}
	code, log := llama3Run(t, filepath.Join(dir, "cache"), "--scenario", "Server", "--model-name", "llama3_1-8b-interactive", "--count", "4",
		"--max-new-tokens", "6", "--min-queries", "10", "--qps", "40", "--audit-conf", audit, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
	s := string(sum)
	for _, k := range []string{"50.00 percentile first token latency (ns)", "50.00 percentile time to output token (ns)"} {
		if v := summaryValue(t, s, k); v <= 0 {
			t.Errorf("%s = %v", k, v)
		}
	}
	if !strings.Contains(s, "ttft_latency (ns): 500000000") || !strings.Contains(s, "tpot_latency (ns): 30000000") {
		t.Errorf("interactive TTFT/TPOT limits not in the summary:\n%s", s)
	}
	if !strings.Contains(log, "TEST06 verification complete") {
		t.Fatalf("no TEST06 result:\n%s", log)
	}
	r, err := llmbench.CheckTEST06(filepath.Join(out, "mlperf_log_accuracy.json"), "Server", accuracy.Int32, tokenizer.Llama3EOTID)
	if err != nil || !r.Pass() || r.Samples != 10 {
		t.Fatalf("TEST06 %+v, %v", r, err)
	}
}

// TestLlama3BadInputs: a Llama 2 model, a Llama 2 tokenizer folder, a
// Llama 3 tokenizer.json of the wrong size, a variant's wrong scenario, a
// remote backend and --max-new-tokens 1 end in errors that say what is
// wrong, before any decoding.
func TestLlama3BadInputs(t *testing.T) {
	orttest.Need(t)
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	l2 := filepath.Join(dir, "llama2.onnx")
	if code, msg := runMlperf(t, nil, "model", "build", "llama2", "-o", l2); code != 0 {
		t.Fatalf("model build llama2: %s", msg)
	}
	// a tokenizer.json of Llama 3's format with 6 special tokens fewer
	var tj map[string]any
	b, err := os.ReadFile(filepath.Join(spec.DepsPath("llama3"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &tj); err != nil {
		t.Fatal(err)
	}
	added := tj["added_tokens"].([]any)
	tj["added_tokens"] = added[:len(added)-6]
	short := filepath.Join(dir, "short")
	os.MkdirAll(short, 0o755)
	b, _ = json.Marshal(tj)
	os.WriteFile(filepath.Join(short, "tokenizer.json"), b, 0o644)

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"llama2 model", []string{"--model", l2, "--mode", "accuracy"}, 1, "the model has 32000 vocabulary rows, as Llama 2"},
		{"llama2 tokenizer", []string{"--tokenizer", spec.DepsPath("llama2")}, 1, "tokenizer.json"},
		{"short tokenizer", []string{"--tokenizer", short}, 1, "has 128250 ids, Llama 3.1's has 128256"},
		{"interactive offline", []string{"--model-name", "llama3_1-8b-interactive", "--scenario", "Offline"}, 2, "runs Server, not Offline"},
		{"edge server", []string{"--model-name", "llama3_1-8b-edge", "--scenario", "Server"}, 2, "runs SingleStream and Offline, not Server"},
		{"openai, no server", []string{"--backend", "openai", "--endpoint", "127.0.0.1:9"}, 1, "the server at http://127.0.0.1:9 does not answer"},
		{"openai, a server of another vocabulary", []string{"--backend", "openai", "--endpoint", foreignVocabServer(t)}, 1, "token id 200000, outside the benchmark's vocabulary of 128256"},
		{"one token", []string{"--max-new-tokens", "1"}, 2, "want at least 2"},
		{"missing data", []string{"--data", filepath.Join(dir, "nothing")}, 1, "download it with models/llama3/download_dataset.sh"},
		{"data folder without the edge file", []string{"--data", dir, "--model-name", "llama3_1-8b-edge"}, 1, "sample_cnn_eval_5000.json"},
	} {
		code, msg := llama3Run(t, cache, append(tc.args, "--out", filepath.Join(dir, "out"))...)
		if code != tc.code || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s", tc.name, code, tc.code, tc.want, msg)
		}
	}
}

// foreignVocabServer answers like an OpenAI-compatible server running a
// model of a larger vocabulary: it takes token ids and returns id 200000.
func foreignVocabServer(t *testing.T) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"llama3.1-8b"}]}`)
			return
		}
		io.WriteString(w, `{"choices":[{"text":"x","token_ids":[200000],"finish_reason":"length"}]}`)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestModelBuildGGUF: `mlperf model build <llm> --format gguf` writes the
// tiny model as a GGUF for llama2 and llama3.1-8b; other benchmarks have
// no --format.
func TestModelBuildGGUF(t *testing.T) {
	needLlamaTokenizer(t)
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	for _, name := range []string{"llama2", "llama3.1-8b"} {
		out := filepath.Join(dir, name+".gguf")
		code, msg := runMlperf(t, nil, "model", "build", name, "--format", "gguf", "-o", out)
		if code != 0 || !strings.Contains(msg, "as GGUF to "+out) {
			t.Fatalf("%s: exit %d: %s", name, code, msg)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 8)
		io.ReadFull(f, head)
		f.Close()
		if !bytes.Equal(head, []byte{'G', 'G', 'U', 'F', 3, 0, 0, 0}) {
			t.Errorf("%s: header % x", name, head)
		}
	}
	for _, args := range [][]string{
		{"model", "build", "llama3.1-8b", "--format", "safetensors", "-o", filepath.Join(dir, "x")},
		{"model", "build", "resnet50", "--format", "gguf", "-o", filepath.Join(dir, "x.gguf")},
		{"model", "build", "llama3.1-8b", "--format", "gguf", "--tokenizer", spec.DepsPath("llama2"), "-o", filepath.Join(dir, "y.gguf")},
	} {
		if code, msg := runMlperf(t, nil, args...); code == 0 {
			t.Errorf("%v succeeded: %s", args, msg)
		}
	}
}

// TestServeLlama3 serves the tiny model over /v1/completions: a greedy
// completion of at most 8 tokens, with usage.
func TestServeLlama3(t *testing.T) {
	orttest.Need(t)
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	addr := startServeChild(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")},
		"llama3.1-8b", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--batch", "2")
	body, _ := json.Marshal(map[string]any{"model": "llama3.1-8b", "prompt": "The capital of France is", "max_tokens": 8, "temperature": 0})
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Post("http://"+addr+"/v1/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var r struct {
		Choices []struct{ Text string }
		Usage   struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.Unmarshal(b, &r); err != nil || resp.StatusCode != 200 || len(r.Choices) != 1 || r.Choices[0].Text == "" {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, b)
	}
	// "The capital of France is": <|begin_of_text|> and 5 tokens
	if r.Usage.PromptTokens != 6 || r.Usage.CompletionTokens < 1 || r.Usage.CompletionTokens > 8 {
		t.Errorf("usage %+v", r.Usage)
	}
}

// TestDatasetLlama3Commands: dataset synth and verify of cnndm-llama3.
func TestDatasetLlama3Commands(t *testing.T) {
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	if code, msg := runMlperf(t, nil, "dataset", "synth", "cnndm-llama3", "-o", dir, "-n", "3"); code != 0 || !strings.Contains(msg, "wrote 3 synthetic") {
		t.Fatalf("synth: exit %d: %s", code, msg)
	}
	code, msg := runMlperf(t, nil, "dataset", "verify", "cnndm-llama3", "--data", dir)
	if code != 0 || !strings.Contains(msg, "3 records (not the official size)") || !strings.Contains(msg, "re-tokenized true") {
		t.Fatalf("verify: exit %d: %s", code, msg)
	}
	if code, msg := runMlperf(t, nil, "dataset", "verify", "cnndm-llama3", "--data", dir, "--official"); code == 0 || !strings.Contains(msg, "want 13368") {
		t.Errorf("--official: exit %d: %s", code, msg)
	}
}

// TestComplianceTEST06Llama3 runs `mlperf compliance test06 llama3.1-8b`:
// the TEST06 run with its audit.config, then run_verification.py's checks
// with the benchmark's end-of-sequence id, into RESULTS/TEST06.
func TestComplianceTEST06Llama3(t *testing.T) {
	orttest.Need(t)
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	os.MkdirAll(results, 0o755)
	code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}, "compliance", "test06", "llama3.1-8b", "--results", results,
		"--work", filepath.Join(dir, "work"), "--model", "synthetic:tiny", "--data", "synthetic", "--threads", "1",
		"--scenario", "Server", "--count", "3", "--max-new-tokens", "6", "--qps", "40")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	b, err := os.ReadFile(filepath.Join(results, "TEST06", "verify_accuracy.txt"))
	if err != nil || !strings.Contains(string(b), "EOS check pass: True") || !strings.Contains(string(b), "TEST06 verification complete") {
		t.Fatalf("verify_accuracy.txt %q, %v\n%s", b, err, log)
	}
}
