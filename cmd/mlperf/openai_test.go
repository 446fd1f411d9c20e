package main

import (
	"bytes"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// runInProcess runs mlperf args through the command's entry point in this
// process and returns the exit code, stdout and stderr.
func runInProcess(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runMain(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// driveOpenAILlama2 runs `mlperf run llama2 --backend openai` against the
// server at addr serving model (in this process, through runMain) in
// Offline and Server accuracy mode and in Server performance mode, and
// checks the accuracy logs, the score lines and the token latencies.
func driveOpenAILlama2(t *testing.T, addr, model string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(dir, "cache"))
	const n, maxNew = 4, 16
	base := []string{"run", "llama2", "--backend", "openai", "--endpoint", addr, "--served-model", model,
		"--data", "synthetic", "--count", "4", "--max-new-tokens", "16", "--batch", "4"}
	run := func(name string, args ...string) (string, string) {
		out := filepath.Join(dir, name)
		code, stdout, stderr := runInProcess(t, append(append(slices.Clone(base), "--out", out), args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", name, code, stdout, stderr)
		}
		return out, stdout + stderr
	}
	byScenario := map[string]map[int][]int32{}
	for _, sc := range []string{"Offline", "Server"} {
		out, log := run("acc-"+sc, "--scenario", sc, "--mode", "accuracy", "--qps", "20")
		for _, want := range []string{"'rougeL': ", "'tokens_per_sample': ", "generated token ids are the server's where its stream carries them, else the vocabulary over each streamed token's text", "not a compliant run"} {
			if !strings.Contains(log, want) {
				t.Errorf("%s: output lacks %q:\n%s", sc, want, log)
			}
		}
		acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
		if err != nil || !strings.Contains(string(acc), "'rougeL': ") {
			t.Errorf("%s: accuracy.txt %q, %v", sc, acc, err)
		}
		ids := map[int][]int32{}
		for _, e := range readAccLog(t, filepath.Join(out, "mlperf_log_accuracy.json")) {
			got := idsOf(t, e.Data)
			if len(got) == 0 || len(got) > maxNew {
				t.Errorf("%s: qsl_idx %d: %d ids", sc, e.QSLIdx, len(got))
			}
			for _, id := range got {
				if id < 0 || id >= 32000 {
					t.Errorf("%s: qsl_idx %d: id %d outside the Llama 2 vocabulary", sc, e.QSLIdx, id)
				}
			}
			if sc == "Server" && (e.TokenCount == nil || *e.TokenCount != len(got) || e.TokenData == "" || !slices.Equal(idsOf(t, e.TokenData), got[:1])) {
				t.Errorf("Server: qsl_idx %d: %d ids, token_count %v, token_data %q", e.QSLIdx, len(got), e.TokenCount, e.TokenData)
			}
			ids[e.QSLIdx] = got
		}
		if len(ids) != n {
			t.Fatalf("%s: %d samples in the accuracy log, want %d", sc, len(ids), n)
		}
		byScenario[sc] = ids
	}
	// Greedy decoding: the same text whatever the scenario and the
	// requests in flight beside it.
	for i, ids := range byScenario["Offline"] {
		if !slices.Equal(ids, byScenario["Server"][i]) {
			t.Errorf("qsl_idx %d: Offline %v, Server %v", i, ids, byScenario["Server"][i])
		}
	}
	out, log := run("perf-Server", "--scenario", "Server", "--qps", "10", "--duration", "1s", "--min-queries", "10")
	sum, err := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(sum)
	for _, k := range []string{"Mean First Token latency (ns)", "99.00 percentile first token latency (ns)",
		"Mean Time per Output Token (ns)", "99.00 percentile time to output token (ns)", "Completed tokens per second"} {
		if v := summaryValue(t, s, k); v <= 0 {
			t.Errorf("%s = %v", k, v)
		}
	}
	if !strings.Contains(s, "SUT name : OpenAI-compatible server(s) http://"+addr) {
		t.Errorf("summary does not name the server:\n%s", s)
	}
	t.Logf("Server performance against %s:\n%s", addr, s[:strings.Index(s, "Test Parameters Used")])
	if !strings.Contains(log, "over --backend openai") {
		t.Errorf("no description of the remote run:\n%s", log)
	}
}

// TestRunLlama2OpenAIOllama is the issue's real-engine run: `mlperf run
// llama2 --backend openai` against ollama serving a tiny Llama with the
// real Llama 2 vocabulary, in Offline and Server.
func TestRunLlama2OpenAIOllama(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	needLlamaTokenizer(t)
	tok, err := tokenizer.LoadLlama(spec.DepsPath("llama2"))
	if err != nil {
		t.Fatal(err)
	}
	addr := ollamatest.Start(t, tok, 4)
	driveOpenAILlama2(t, addr, ollamatest.Model)
}

// TestRunLlama2OpenAIAgainstServe drives the openai backend against this
// suite's own server: `mlperf serve llama2` (the tiny synthetic model,
// greedy decoding with continuous batching, /v1/completions) in a child
// process.
func TestRunLlama2OpenAIAgainstServe(t *testing.T) {
	orttest.Need(t)
	needLlamaTokenizer(t)
	dir := t.TempDir()
	addr := startServeChild(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")},
		"llama2", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--batch", "4", "--max-new-tokens", "64")
	driveOpenAILlama2(t, addr, "llama2")
}
