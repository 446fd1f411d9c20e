package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/models/llama2"
	"github.com/mlperf-go/inference/onnx"
	"github.com/parquet-go/parquet-go"
)

// needLlamaTokenizer skips the test when make setup has not installed the
// Llama 2 tokenizer.
func needLlamaTokenizer(t *testing.T) {
	t.Helper()
	if _, err := tokenizer.LoadLlama(spec.DepsPath("llama2")); err != nil {
		t.Skipf("Llama 2 tokenizer not installed: %v", err)
	}
}

// llamaRun runs `mlperf run llama2` on the tiny synthetic model and the
// synthetic data set with a cache folder shared by the tests of one cache.
func llamaRun(t *testing.T, cache string, args ...string) (int, string) {
	t.Helper()
	base := []string{"run", "llama2", "--model", "synthetic:tiny", "--data", "synthetic", "--threads", "1"}
	return runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache}, append(base, args...)...)
}

// summaryValue returns the integer after "key" ... ":" in a summary.
func summaryValue(t *testing.T, summary, key string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s*:\s*([0-9.e+]+)`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("summary has no %q:\n%s", key, summary)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type accEntry struct {
	QSLIdx     int    `json:"qsl_idx"`
	Data       string `json:"data"`
	TokenData  string `json:"token_data"`
	TokenCount *int   `json:"token_count"`
}

func readAccLog(t *testing.T, path string) []accEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var es []accEntry
	if err := json.Unmarshal(b, &es); err != nil {
		t.Fatal(err)
	}
	return es
}

func idsOf(t *testing.T, h string) []int32 {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := llama2.DecodeTokens(b)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestRunLlama2OfflinePerformance(t *testing.T) {
	orttest.Need(t)
	needLlamaTokenizer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, log := llamaRun(t, filepath.Join(dir, "cache"), "--count", "6", "--max-new-tokens", "12", "--min-queries", "6", "--duration", "1ms", "--batch", "4", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
	s := string(sum)
	if !strings.Contains(s, "Scenario : Offline") || summaryValue(t, s, "Tokens per second") <= 0 {
		t.Fatalf("summary:\n%s", s)
	}
	// Offline: no first-token latencies (FirstToken is withheld), and
	// LoadGen's Offline summary has no first-token section.
	if strings.Contains(s, "first token latency") {
		t.Errorf("Offline summary has first-token latencies:\n%s", s)
	}
	m := regexp.MustCompile(`llama2: (\d+) samples, (\d+) generated tokens`).FindStringSubmatch(log)
	if m == nil || m[1] != "6" {
		t.Fatalf("no sample count in the log:\n%s", log)
	}
	if n, _ := strconv.Atoi(m[2]); n < 6*2 || n > 6*12 {
		t.Errorf("%s tokens for 6 samples of at most 12", m[2])
	}
	// mlperf.conf's performance_sample_count of 24576 over a 6-row data
	// set: LoadGen loads the 6 and pads the equal-issue query to them, so
	// the 6 samples above are the whole query.
	if !strings.Contains(log, "not a compliant run") {
		t.Errorf("notes missing:\n%s", log)
	}
}

func TestRunLlama2ServerTEST06(t *testing.T) {
	orttest.Need(t)
	needLlamaTokenizer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	audit, err := filepath.Abs(filepath.Join("..", "..", "models", "llama2", "test06_audit.config"))
	if err != nil {
		t.Fatal(err)
	}
	code, log := llamaRun(t, filepath.Join(dir, "cache"), "--scenario", "Server", "--model-name", "llama2-70b-interactive", "--count", "5",
		"--max-new-tokens", "10", "--min-queries", "12", "--qps", "40", "--audit-conf", audit, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
	s := string(sum)
	for _, k := range []string{"50.00 percentile first token latency (ns)", "99.00 percentile first token latency (ns)",
		"50.00 percentile time to output token (ns)", "99.00 percentile time to output token (ns)", "Completed tokens per second"} {
		if v := summaryValue(t, s, k); v <= 0 {
			t.Errorf("%s = %v", k, v)
		}
	}
	// the interactive limits of mlperf.conf apply
	if !strings.Contains(s, "ttft_latency (ns): 450000000") || !strings.Contains(s, "tpot_latency (ns): 40000000") {
		t.Errorf("interactive TTFT/TPOT limits not in the summary:\n%s", s)
	}
	if !strings.Contains(log, "TEST06 verification complete") {
		t.Fatalf("no TEST06 result:\n%s", log)
	}
	acc := filepath.Join(out, "mlperf_log_accuracy.json")
	es := readAccLog(t, acc)
	if len(es) != 12 { // every one of the 12 queries is logged (sampling target 100)
		t.Fatalf("%d logged entries, want 12", len(es))
	}
	byIdx := map[int][]int32{}
	for _, e := range es {
		ids := idsOf(t, e.Data)
		if e.TokenCount == nil || *e.TokenCount != len(ids) || e.TokenData == "" || !slices.Equal(idsOf(t, e.TokenData), ids[:1]) {
			t.Errorf("qsl_idx %d: %d ids, token_count %v, token_data %q", e.QSLIdx, len(ids), e.TokenCount, e.TokenData)
		}
		if prev, ok := byIdx[e.QSLIdx]; ok && !slices.Equal(prev, ids) {
			t.Errorf("qsl_idx %d: %v then %v: decoding depends on the batch", e.QSLIdx, prev, ids)
		}
		byIdx[e.QSLIdx] = ids
	}
	r, err := llmbench.CheckTEST06(acc, "Server", accuracy.Int32, llama2.EOS)
	if err != nil || !r.Pass() || r.Samples != 12 {
		t.Fatalf("TEST06 %+v, %v", r, err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "TEST06", "verify_accuracy.txt")); string(b) != r.String() {
		t.Errorf("verify_accuracy.txt %q", b)
	}
	// the standalone command agrees, and fails a broken log
	if code, msg := runMlperf(t, nil, "compliance", "test06", "--log", out, "--scenario", "Server", "--out", dir); code != 0 || !strings.Contains(msg, "First token check pass: True") {
		t.Fatalf("compliance test06: %d %s", code, msg)
	}
	b, _ := os.ReadFile(acc)
	broken := regexp.MustCompile(`"token_count" : \d+`).ReplaceAll(b, []byte(`"token_count" : 1`))
	os.WriteFile(acc, broken, 0o644)
	if code, msg := runMlperf(t, nil, "compliance", "test06", "--log", acc, "--scenario", "Server", "--out", dir); code != 1 || !strings.Contains(msg, "Sample length check pass: False") {
		t.Fatalf("broken log: %d %s", code, msg)
	}
}

// The accuracy path: an Offline accuracy run whose every response equals
// greedy decoding of the sample alone (computed here in-process), and
// `mlperf accuracy llama2` printing the same score as the run.
func TestRunLlama2AccuracyEndToEnd(t *testing.T) {
	orttest.Need(t)
	needLlamaTokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	out := filepath.Join(dir, "out")
	const n, maxNew = 5, 12
	code, log := llamaRun(t, cache, "--mode", "accuracy", "--count", strconv.Itoa(n), "--max-new-tokens", strconv.Itoa(maxNew), "--batch", "3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if !strings.Contains(log, "synthetic weights: accuracy not meaningful") {
		t.Errorf("no synthetic-weights note:\n%s", log)
	}
	data := filepath.Join(cache, "openorca-synthetic-small", openorca.FileName)
	ds, err := openorca.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	prompts, err := ds.Tokens(openorca.ColTokInput, []int{0, 1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ort.Open(filepath.Join(cache, "llama2-synthetic-tiny", "model.onnx"), ort.Options{Provider: "cpu", IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	m, err := llama2.New(sess, llama2.Configs[llama2.SizeTiny])
	if err != nil {
		t.Fatal(err)
	}
	gen := llama2.Generation()
	gen.MaxNewTokens = maxNew
	es := readAccLog(t, filepath.Join(out, "mlperf_log_accuracy.json"))
	if len(es) != n {
		t.Fatalf("%d entries, want %d", len(es), n)
	}
	tok, _ := tokenizer.LoadLlama(spec.DepsPath("llama2"))
	var preds, refs []string
	var counts []int
	outputs, _ := ds.Strings(openorca.ColOutput)
	for _, e := range es {
		got := idsOf(t, e.Data)
		want, err := m.Greedy(context.Background(), [][]int32{prompts[e.QSLIdx]}, generate.GreedyConfig{GreedyConfig: gen})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want[0]) {
			t.Errorf("qsl_idx %d: run %v, greedy alone %v", e.QSLIdx, got, want[0])
		}
		if e.TokenData != "" {
			t.Errorf("qsl_idx %d: token_data in an Offline run", e.QSLIdx)
		}
		preds = append(preds, tok.Decode(got, tokenizer.DecodeOptions{SkipSpecial: true}))
		refs = append(refs, outputs[e.QSLIdx])
		counts = append(counts, len(got))
	}
	want, err := rouge.Evaluate(preds, refs, counts)
	if err != nil {
		t.Fatal(err)
	}
	txt, _ := os.ReadFile(filepath.Join(out, "accuracy.txt"))
	if strings.TrimSpace(string(txt)) != want.Llama2String() {
		t.Fatalf("accuracy.txt %q, want %q", txt, want.Llama2String())
	}
	if !strings.Contains(want.Llama2String(), fmt.Sprintf("'gen_num': %d,", n)) {
		t.Fatalf("score %s", want.Llama2String())
	}
	acc2 := filepath.Join(dir, "acc2.txt")
	code, msg := runMlperf(t, nil, "accuracy", "llama2", "--log", filepath.Join(out, "mlperf_log_accuracy.json"), "--data", data, "--model", "synthetic:tiny", "--out", acc2)
	if code != 0 || !strings.Contains(msg, "Results\n\n"+want.Llama2String()+"\n(synthetic weights: accuracy not meaningful)") {
		t.Fatalf("accuracy llama2: %d\n%s", code, msg)
	}
	if b, _ := os.ReadFile(acc2); !bytes.Contains(b, []byte(want.Llama2String())) {
		t.Errorf("--out file %q", b)
	}
	// a log of another data set
	code, msg = runMlperf(t, nil, "accuracy", "llama2", "--log", filepath.Join(out, "mlperf_log_accuracy.json"), "--data", writeOrca(t, dir, "two.parquet", 2, nil))
	if code != 1 || !strings.Contains(msg, "but "+filepath.Join(dir, "two.parquet")+" has 2 rows") {
		t.Fatalf("short data set: %d %s", code, msg)
	}
}

// writeOrca writes an OpenOrca parquet of n rows with prompts from prompt
// (nil: short valid prompts).
func writeOrca(t *testing.T, dir, name string, n int, prompt func(i int) []int64) string {
	t.Helper()
	recs := make([]openorca.Record, n)
	for i := range recs {
		p := []int64{1, 1, 518, 25580, 29962, 100 + int64(i), 29871}
		if prompt != nil {
			p = prompt(i)
		}
		recs[i] = openorca.Record{ID: fmt.Sprintf("cot.%d", i), Origin: "cot", Output: "An answer.", TokInput: p,
			TokOutput: []int64{1, 530, 1234, 29889}, TokInputLength: int64(len(p)), TokOutputLength: 4}
	}
	path := filepath.Join(dir, name)
	if err := openorca.WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeNoPresentModel writes a decoder that takes past_key_values but
// returns only logits (exported without its cache outputs).
func writeNoPresentModel(t *testing.T, path string) {
	t.Helper()
	g := onnx.NewGraph(onnx.Config{Name: "no-present", Opset: 17, Seed: 1})
	ids := g.Input("input_ids", onnx.Int64, onnx.Sym("batch"), onnx.Sym("seq"))
	g.Input("attention_mask", onnx.Int64, onnx.Sym("batch"), onnx.Sym("total"))
	for l := range 2 {
		for _, kv := range []string{"key", "value"} {
			g.Input(fmt.Sprintf("past_key_values.%d.%s", l, kv), onnx.Float, onnx.Sym("batch"), onnx.Fix(2), onnx.Sym("past"), onnx.Fix(16))
		}
	}
	x := g.Gather(g.Param("emb", onnx.Float, []int64{32000, 4}, onnx.Uniform(-1, 1)), ids, 0)
	lo := g.MatMul(x, g.Param("head", onnx.Float, []int64{4, 32000}, onnx.Uniform(-1, 1)))
	g.Node("Identity", []string{lo}, []string{"logits"})
	g.Output("logits", onnx.Float, onnx.Sym("batch"), onnx.Sym("seq"), onnx.Fix(32000))
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

func TestRunLlama2BadInput(t *testing.T) {
	needLlamaTokenizer(t)
	dir := t.TempDir()
	good := writeOrca(t, dir, "good.parquet", 3, nil)
	long := writeOrca(t, dir, "long.parquet", 3, func(i int) []int64 {
		n := 40
		if i == 1 {
			n = 3100 // 3100 + 1024 > 4096
		}
		p := make([]int64, n)
		for k := range p {
			p[k] = 1000
		}
		return p
	})
	outside := writeOrca(t, dir, "outside.parquet", 2, func(i int) []int64 { return []int64{1, 32000 + int64(i)} })
	type raw struct {
		ID       string `parquet:"id"`
		Question string `parquet:"question"`
		Response string `parquet:"response"`
	}
	rawPath := filepath.Join(dir, "raw.parquet")
	{
		var buf bytes.Buffer
		if err := writeParquetRows(&buf, []raw{{"cot.1", "q", "r"}}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(rawPath, buf.Bytes(), 0o644)
	}
	pkl := filepath.Join(dir, openorca.PickleName)
	os.WriteFile(pkl, []byte("\x80\x04not parquet"), 0o644)
	vocab1000 := filepath.Join(dir, "vocab1000.onnx")
	c := llama2.Configs[llama2.SizeTiny]
	c.Vocab = 1000
	if err := llama2.BuildConfigFile(vocab1000, c, 1); err != nil {
		t.Fatal(err)
	}
	noPresent := filepath.Join(dir, "nopresent.onnx")
	writeNoPresentModel(t, noPresent)
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	run := []string{"run", "llama2", "--out", filepath.Join(dir, "out"), "--max-new-tokens", "4", "--min-queries", "2", "--duration", "1ms"}
	checkBadRuns(t, env, run, []badRun{
		{"model name", []string{"--model-name", "llama2-7b"}, 2, `--model-name "llama2-7b": want one of llama2-70b, llama2-70b-interactive`, false, nil},
		{"one new token", []string{"--max-new-tokens", "1"}, 2, "want at least 2", false, nil},
		{"synthetic size", []string{"--data", good, "--model", "synthetic:13b"}, 2, `no synthetic size "13b"`, false, nil},
		{"missing model", []string{"--data", good, "--model", filepath.Join(dir, "none.onnx")}, 1, "download_model.sh", false, nil},
		{"no tok_input", []string{"--data", rawPath}, 1, "has no tok_input column (columns: id, question, response)", false, nil},
		{"pickle", []string{"--data", pkl}, 1, "pandas pickle; convert it once to parquet", false, nil},
		{"missing data", []string{"--data", filepath.Join(dir, "none.parquet")}, 1, "does not exist; want the preprocessed OpenOrca parquet file", false, nil},
		{"prompt longer than the context", []string{"--data", long, "--max-new-tokens", "1024"}, 1, "3100 prompt ids + 1024 new tokens exceed the model's context of 4096 positions (row 1 of " + long, true, nil},
		{"ids outside the vocabulary", []string{"--data", outside}, 1, "at position 1 is outside the model's vocabulary of 32000", true, nil},
		{"tokenizer vocabulary", []string{"--data", good, "--model", vocab1000}, 1, "the model has 1000 vocabulary rows but the tokenizer has 32000 ids", true, nil},
		{"no present outputs", []string{"--data", good, "--model", noPresent}, 1, `output "present.0.key" missing`, true, nil},
		{"tokenizer missing in accuracy mode", []string{"--data", good, "--mode", "accuracy", "--tokenizer", dir}, 1, "give --tokenizer DIR", true, nil},
	})
}

func TestDatasetOpenOrcaCommands(t *testing.T) {
	needLlamaTokenizer(t)
	dir := t.TempDir()
	if code, out := runMlperf(t, nil, "dataset", "synth", "openorca", "-o", dir, "-n", "8"); code != 0 || !strings.Contains(out, "wrote 8 synthetic OpenOrca rows") {
		t.Fatalf("synth: %d %s", code, out)
	}
	path := filepath.Join(dir, openorca.FileName)
	code, out := runMlperf(t, nil, "dataset", "verify", "openorca", "--data", dir)
	if code != 0 || !strings.Contains(out, "8 rows (cot 2, flan 2, niv 2, t0 2)") {
		t.Fatalf("verify: %d %s", code, out)
	}
	if code, out := runMlperf(t, nil, "dataset", "verify", "openorca", "--data", path, "--official"); code != 1 || !strings.Contains(out, "not the official file's shape (8 rows, want 24576") {
		t.Fatalf("verify --official: %d %s", code, out)
	}
	bad := writeOrca(t, dir, "bad.parquet", 2, func(i int) []int64 { return []int64{1, 2, 3} })
	if code, out := runMlperf(t, nil, "dataset", "verify", "openorca", "--data", bad); code != 1 || !strings.Contains(out, "row 0: tok_input ends with 3, not 29871") {
		t.Fatalf("verify bad: %d %s", code, out)
	}
}

func writeParquetRows[T any](w io.Writer, rows []T) error {
	pw := parquet.NewGenericWriter[T](w)
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}
