package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/internal/deps"
	"github.com/mlperf-go/inference/llm/llama"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// needMixtralTokenizer skips the test when make setup has not installed
// the Mixtral tokenizer.
func needMixtralTokenizer(t *testing.T) {
	t.Helper()
	if _, err := deps.Find("mixtral/mistral-tokenizer.js"); err != nil {
		t.Skipf("Mixtral tokenizer not installed: %v", err)
	}
}

// mixtralRun runs `mlperf run mixtral` on the tiny synthetic model and
// the synthetic data set.
func mixtralRun(t *testing.T, cache string, args ...string) (int, string) {
	t.Helper()
	base := []string{"run", "mixtral", "--model", "synthetic:tiny", "--data", "synthetic", "--threads", "1"}
	return runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache, childRun}, append(base, args...)...)
}

// mixtralLine is evaluate-accuracy.py's printed dict.
var mixtralLine = regexp.MustCompile(`\{'rouge1': [0-9.]+, 'rouge2': [0-9.]+, 'rougeL': [0-9.]+, 'rougeLsum': [0-9.]+, 'gsm8k': [0-9.]+, 'mbxp': [0-9.]+, 'gen_len': \d+, 'gen_num': (\d+), 'gen_tok_len': (\d+), 'tokens_per_sample': ([0-9.]+)\}`)

// TestRunMixtralAccuracy is the done-when on fewer samples and
// tokens: `mlperf run mixtral --model synthetic:tiny --data synthetic
// --mode accuracy` reaches evaluate-accuracy.py's line (two MBXP rows,
// C++ and Python, run in the sandbox, with evaluate_mbxp's report), and
// `mlperf accuracy` prints it again from the log; with no toolchain
// folder the MBXP rows fail with a warning naming the packages.
func TestRunMixtralAccuracy(t *testing.T) {
	orttest.Need(t)
	needMixtralTokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	out := filepath.Join(dir, "out")
	code, log := mixtralRun(t, cache, "--mode", "accuracy", "--count", "6", "--max-new-tokens", "24", "--out", out)
	m := mixtralLine.FindStringSubmatch(log)
	if code != 0 || m == nil || m[1] != "6" || !strings.Contains(log, "accuracy not meaningful") || !strings.Contains(log, "not a compliant run") {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if !strings.Contains(log, "pass@1") || !strings.Contains(log, "{'cpp': 1, 'python': 1}") {
		t.Errorf("no MBXP report of one C++ and one Python row:\n%s", log)
	}
	if !strings.Contains(log, "mixtral: 6 samples, "+m[2]+" generated tokens") {
		t.Errorf("the SUT's token count is not gen_tok_len %s:\n%s", m[2], log)
	}
	acc, err := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if err != nil || !strings.Contains(string(acc), m[0]) {
		t.Errorf("accuracy.txt %q (%v) lacks %s", acc, err, m[0])
	}
	code, msg := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache}, "accuracy", "mixtral", "--log", out, "--data", "synthetic")
	if code != 0 || !strings.Contains(msg, m[0]) {
		t.Errorf("mlperf accuracy: exit %d, want %s:\n%s", code, m[0], msg)
	}
	code, msg = runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache}, "accuracy", "mixtral", "--log", out, "--data", "synthetic", "--toolchains", t.TempDir())
	if mm := mixtralLine.FindStringSubmatch(msg); code != 0 || mm == nil || !strings.Contains(mm[0], "'mbxp': 0.0") ||
		!strings.Contains(msg, "apt-get install g++") || !strings.Contains(msg, "apt-get install python3") {
		t.Errorf("no toolchains: exit %d:\n%s", code, msg)
	}
}

// TestRunMixtralServerTEST06: a Server run with TEST06's audit.config:
// first-token latencies in the summary, Mixtral's TTFT/TPOT bounds, and
// TEST06's checks with </s> as the end-of-sequence id on the trimmed
// responses.
func TestRunMixtralServerTEST06(t *testing.T) {
	orttest.Need(t)
	needMixtralTokenizer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	audit, err := filepath.Abs(filepath.Join("..", "..", "models", "mixtral", "test06_audit.config"))
	if err != nil {
		t.Fatal(err)
	}
	code, log := mixtralRun(t, filepath.Join(dir, "cache"), "--scenario", "Server", "--count", "4",
		"--max-new-tokens", "6", "--min-queries", "10", "--qps", "40", "--audit-conf", audit, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
	s := string(sum)
	if v := summaryValue(t, s, "50.00 percentile first token latency (ns)"); v <= 0 {
		t.Errorf("first token latency %v", v)
	}
	if !strings.Contains(s, "ttft_latency (ns): 2000000000") || !strings.Contains(s, "tpot_latency (ns): 200000000") {
		t.Errorf("Mixtral's TTFT/TPOT limits not in the summary:\n%s", s)
	}
	if !strings.Contains(log, "TEST06 verification complete") {
		t.Fatalf("no TEST06 result:\n%s", log)
	}
	r, err := llmbench.CheckTEST06(filepath.Join(out, "mlperf_log_accuracy.json"), "Server", accuracy.Int32, tokenizer.MistralEOSID)
	if err != nil || !r.Pass() || r.Samples != 10 {
		t.Fatalf("TEST06 %+v, %v", r, err)
	}
}

// TestMixtralBadInputs: a pickle of another data set, a model of 4
// experts, a Llama model, the Llama 2 tokenizer, --max-new-tokens 1 and
// --backend kserve end in errors that say what is wrong, before any
// decoding.
func TestMixtralBadInputs(t *testing.T) {
	orttest.Need(t)
	needMixtralTokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	four := filepath.Join(dir, "four.onnx")
	writeMixtralVariant(t, four)
	l2 := filepath.Join(dir, "llama2.onnx")
	if code, msg := runMlperf(t, nil, "model", "build", "llama2", "-o", l2); code != 0 {
		t.Fatalf("model build llama2: %s", msg)
	}
	orca, err := filepath.Abs(filepath.Join("..", "..", "datasets", "mixtral", "testdata", "llama2_openorca.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	l2tok, err := deps.Find("llama2/llama-tokenizer.js")
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"other data set", []string{"--data", orca}, "looks like the Llama 2 70B OpenOrca data set"},
		{"4 experts", []string{"--model", four}, "has 4 experts per layer, Mixtral-8x7B has 8"},
		{"llama model", []string{"--model", l2}, "dense MLP"},
		{"llama 2 tokenizer", []string{"--tokenizer", l2tok}, "no vocab_base64"},
		{"one token", []string{"--max-new-tokens", "1"}, "want at least 2"},
		{"kserve", []string{"--backend", "kserve", "--endpoint", "127.0.0.1:1"}, "a decoder runs remotely over --backend openai"},
	} {
		code, log := mixtralRun(t, cache, append([]string{"--mode", "accuracy", "--count", "3"}, tc.args...)...)
		if code == 0 || !strings.Contains(log, tc.want) || strings.Contains(log, "panic") {
			t.Errorf("%s: exit %d, want an error with %q:\n%s", tc.name, code, tc.want, log)
		}
	}
}

// TestMixtralModelAndDataCommands: `mlperf model build mixtral` writes the
// tiny model, as ONNX and as a GGUF with its experts; `mlperf dataset synth mixtral` writes a pickle that `dataset
// verify` reads and that --official refuses.
func TestMixtralModelAndDataCommands(t *testing.T) {
	needMixtralTokenizer(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "m.onnx")
	if code, msg := runMlperf(t, nil, "model", "build", "mixtral", "-o", p); code != 0 {
		t.Fatalf("model build: %s", msg)
	}
	if st, err := os.Stat(p); err != nil || st.Size() < 8<<20 {
		t.Errorf("model %v, %v", st, err)
	}
	gg := filepath.Join(dir, "m.gguf")
	if code, msg := runMlperf(t, nil, "model", "build", "mixtral", "--format", "gguf", "-o", gg); code != 0 {
		t.Fatalf("model build --format gguf: %s", msg)
	}
	if b, err := os.ReadFile(gg); err != nil || len(b) < 8<<20 || string(b[:4]) != "GGUF" || !strings.Contains(string(b[:1<<20]), "llama.expert_count") {
		t.Errorf("gguf: %d bytes, %v", len(b), err)
	}
	data := filepath.Join(dir, "data")
	code, msg := runMlperf(t, nil, "dataset", "synth", "mixtral", "-o", data, "-n", "9")
	if code != 0 || !strings.Contains(msg, "wrote 9 synthetic Mixtral rows") {
		t.Fatalf("synth: exit %d\n%s", code, msg)
	}
	code, msg = runMlperf(t, nil, "dataset", "verify", "mixtral", "--data", data)
	if code != 0 || !strings.Contains(msg, "9 rows (OpenOrca 3, GSM8K 3, MBXP 3)") {
		t.Errorf("verify: exit %d\n%s", code, msg)
	}
	code, msg = runMlperf(t, nil, "dataset", "verify", "mixtral", "--data", data, "--official")
	if code == 0 || !strings.Contains(msg, "not that of the official validation file") {
		t.Errorf("verify --official: exit %d\n%s", code, msg)
	}
}

// writeMixtralVariant writes a one-layer Mixtral-shaped model with 4
// experts per layer (another mixture of experts) to path.
func writeMixtralVariant(t *testing.T, path string) {
	t.Helper()
	c := llama.Config{Layers: 1, Hidden: 64, Heads: 8, KVHeads: 2, Intermediate: 224, Vocab: tokenizer.MistralVocabSize,
		MaxPositions: 32768, RopeTheta: 1e6, RMSEps: 1e-5, Experts: 4, ExpertsPerToken: 2}
	g, err := llama.Build(c, 1, llama.Options{Name: "four-experts"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestRunMixtralOpenAIAgainstServe: `mlperf run mixtral --backend openai`
// against `mlperf serve mixtral` (the tiny synthetic model in a child
// process) reaches evaluate-accuracy.py's line with the prompts sent as
// the data set's token ids (the server takes ids), and each sample's text is
// the local run's: the server reads the `input` prompt's "<s>" as the
// special token, so it runs tok_input, and the streamed text maps back to
// the same answer, trimmed alike.
func TestRunMixtralOpenAIAgainstServe(t *testing.T) {
	orttest.Need(t)
	needMixtralTokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	addr := startServeChild(t, []string{"MLPERF_CACHE_DIR=" + cache},
		"mixtral", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--batch", "4", "--max-new-tokens", "12")
	common := []string{"--mode", "accuracy", "--count", "4", "--max-new-tokens", "12"}
	local := filepath.Join(dir, "local")
	if code, log := mixtralRun(t, cache, append(common, "--out", local)...); code != 0 {
		t.Fatalf("local: exit %d\n%s", code, log)
	}
	remote := filepath.Join(dir, "remote")
	code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache}, append([]string{"run", "mixtral", "--backend", "openai", "--endpoint", addr,
		"--served-model", "mixtral", "--data", "synthetic", "--out", remote}, common...)...)
	if m := mixtralLine.FindStringSubmatch(log); code != 0 || m == nil || m[1] != "4" || !strings.Contains(log, "over --backend openai") || !strings.Contains(log, "prompts sent as token ids") {
		t.Fatalf("remote: exit %d\n%s", code, log)
	}
	tok, err := tokenizer.LoadMistral(deps.Path("mixtral"))
	if err != nil {
		t.Fatal(err)
	}
	texts := func(out string) map[int]string {
		m := map[int]string{}
		for _, e := range readAccLog(t, filepath.Join(out, "mlperf_log_accuracy.json")) {
			m[e.QSLIdx] = tok.Decode(idsOf(t, e.Data), tokenizer.DecodeOptions{SkipSpecial: true})
		}
		return m
	}
	lt, rt := texts(local), texts(remote)
	if len(lt) != 4 || len(rt) != 4 {
		t.Fatalf("local %d, remote %d samples", len(lt), len(rt))
	}
	for i, s := range lt {
		if rt[i] != s {
			t.Errorf("qsl_idx %d: remote %q, local %q", i, rt[i], s)
		}
	}
}

// TestRunMixtralOpenAIOllama is the real-engine run: `mlperf run mixtral
// --backend openai` against ollama (llama.cpp's mixture-of-experts
// kernels) serving the tiny Mixtral GGUF that `mlperf model build mixtral
// --format gguf` writes, to evaluate-accuracy.py's line.
func TestRunMixtralOpenAIOllama(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	needMixtralTokenizer(t)
	dir := t.TempDir()
	gg := filepath.Join(dir, "tiny.gguf")
	if code, msg := runMlperf(t, nil, "model", "build", "mixtral", "--format", "gguf", "-o", gg); code != 0 {
		t.Fatalf("model build --format gguf: %s", msg)
	}
	addr := ollamatest.StartFile(t, gg, 2, "PARAMETER repeat_penalty 1")
	code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}, "run", "mixtral", "--backend", "openai", "--endpoint", addr,
		"--served-model", ollamatest.Model, "--data", "synthetic", "--count", "3", "--max-new-tokens", "8", "--mode", "accuracy", "--out", filepath.Join(dir, "out"))
	if m := mixtralLine.FindStringSubmatch(log); code != 0 || m == nil || m[1] != "3" {
		t.Fatalf("exit %d\n%s", code, log)
	}
}
