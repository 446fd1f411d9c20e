package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/models/gptj"
)

// gptjTestTokenizer returns the GPT-2 tokenizer folder make setup fills,
// or skips.
func gptjTestTokenizer(t *testing.T) string {
	t.Helper()
	d := spec.DepsPath("gptj")
	if !filepath.IsAbs(d) {
		d = filepath.Join("..", "..", d)
	}
	if _, err := os.Stat(filepath.Join(d, "encoder.json")); err != nil {
		t.Skip("no GPT-2 tokenizer: run make setup (or set MLPERF_DEPS)")
	}
	abs, _ := filepath.Abs(d)
	return abs
}

type gptjLogEntry struct {
	QSLIdx uint64 `json:"qsl_idx"`
	Data   string `json:"data"`
}

// TestRunGPTJEndToEnd runs the tiny synthetic GPT-J on synthetic data in
// Offline (batched) and SingleStream, accuracy and performance modes, and
// checks what the logs hold: int64 ids of 30 to 128 generated tokens (plus
// one EOS when a hypothesis ended), the same ids a direct beam search of
// each prompt gives, and a score that `accuracy gptj` reproduces.
func TestRunGPTJEndToEnd(t *testing.T) {
	orttest.Need(t)
	tokDir := gptjTestTokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	env := []string{"MLPERF_CACHE_DIR=" + cache}
	const count = 2
	// mlperf.conf's performance_sample_count of 13368 over a 2-sample data
	// set: LoadGen loads the 2 and pads the equal-issue Offline query to them.
	common := []string{"run", "gptj", "--model", "synthetic:tiny", "--data", "synthetic", "--tokenizer", tokDir,
		"--count", "2", "--threads", "1"}
	logs := map[string][]gptjLogEntry{}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"offline-accuracy", []string{"--scenario", "Offline", "--mode", "accuracy", "--batch", "2"},
			[]string{"'rouge1': '", "'gen_num': 2}", "synthetic weights: accuracy not meaningful"}},
		{"singlestream-accuracy", []string{"--scenario", "SingleStream", "--mode", "accuracy"},
			[]string{"'gen_num': 2}"}},
		{"offline-performance", []string{"--scenario", "Offline", "--min-queries", "2", "--duration", "1ms"},
			[]string{"Samples per second", "Tokens per second (inferred): "}},
		{"singlestream-performance", []string{"--scenario", "SingleStream", "--min-queries", "2", "--duration", "1ms"},
			[]string{"percentile latency (ns)"}},
	} {
		out := filepath.Join(dir, tc.name)
		code, msg := runMlperf(t, env, append(append(slices.Clone(common), tc.args...), "--out", out)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.name, code, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Fatalf("%s: output lacks %q:\n%s", tc.name, w, msg)
			}
		}
		b, err := os.ReadFile(filepath.Join(out, "mlperf_log_accuracy.json"))
		if err != nil {
			t.Fatal(err)
		}
		var entries []gptjLogEntry
		if err := json.Unmarshal(b, &entries); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		logs[tc.name] = entries
	}

	// Direct beam search of each prompt, one at a time.
	tok, err := tokenizer.LoadGPT2(tokDir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := cnndm.Load(filepath.Join(cache, "cnndm-synthetic-small", cnndm.FileName))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ort.Open(filepath.Join(cache, "gptj-synthetic-tiny", "model.onnx"), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	spec, err := gptj.SpecOf(sess)
	if err != nil {
		t.Fatal(err)
	}
	m, err := gptj.NewSpec(sess, spec, func(loadgen.SampleIndex) ([]int32, error) { return nil, nil }, gptj.Generation(sample.LengthWithPrompt))
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]int32, count)
	for i := range count {
		g, err := m.Generate(context.Background(), [][]int32{gptj.EncodePrompt(tok, recs[i])})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = g[0]
	}
	for _, name := range []string{"offline-accuracy", "singlestream-accuracy"} {
		seen := map[uint64]bool{}
		for _, e := range logs[name] {
			raw, err := hex.DecodeString(e.Data)
			if err != nil || len(raw)%8 != 0 {
				t.Fatalf("%s: data %q is not int64 ids", name, e.Data)
			}
			ids, err := gptj.DecodeTokens(raw)
			if err != nil {
				t.Fatal(err)
			}
			n := len(ids)
			if n > 0 && ids[n-1] == gptj.EOS {
				n-- // the EOS appended to a finished hypothesis
			}
			if n < gptj.MinNewTokens || n > gptj.MaxNewTokens || slices.Contains(ids[:n], gptj.EOS) {
				t.Fatalf("%s: qsl_idx %d: %d ids %v", name, e.QSLIdx, len(ids), ids)
			}
			if !slices.Equal(ids, want[e.QSLIdx]) {
				t.Errorf("%s: qsl_idx %d: logged %v, direct beam search %v", name, e.QSLIdx, ids, want[e.QSLIdx])
			}
			seen[e.QSLIdx] = true
		}
		if len(seen) != count {
			t.Fatalf("%s: %d samples logged", name, len(seen))
		}
	}
	for _, name := range []string{"offline-performance", "singlestream-performance"} {
		if len(logs[name]) != 0 {
			t.Errorf("%s: performance run logged %d responses", name, len(logs[name]))
		}
	}

	// accuracy gptj reads the log and prints what the run wrote.
	acc, _ := os.ReadFile(filepath.Join(dir, "offline-accuracy", "accuracy.txt"))
	outFile := filepath.Join(dir, "acc.txt")
	code, msg := runMlperf(t, env, "accuracy", "gptj", "--log", filepath.Join(dir, "offline-accuracy", "mlperf_log_accuracy.json"),
		"--data", "synthetic", "--count", "2", "--tokenizer", tokDir, "--model", "synthetic:tiny", "--out", outFile)
	if code != 0 || !strings.Contains(msg, "\nResults\n\n"+strings.TrimSpace(string(acc))+"\n") || !strings.Contains(msg, "not meaningful") {
		t.Fatalf("accuracy gptj: exit %d\n%s\nwant %s", code, msg, acc)
	}
	if b, _ := os.ReadFile(outFile); string(b) != string(acc) {
		t.Fatalf("--out wrote %q, want %q", b, acc)
	}
}

func TestRunGPTJBadInput(t *testing.T) {
	tokDir := gptjTestTokenizer(t)
	dir := t.TempDir()
	data := filepath.Join(dir, cnndm.FileName)
	if code, out := runMlperf(t, nil, "dataset", "synth", "cnndm", "-o", data, "-n", "2"); code != 0 {
		t.Fatalf("synth: %d %s", code, out)
	}
	malformed := filepath.Join(dir, "malformed.json")
	os.WriteFile(malformed, []byte(`[{"instruction": "Summarize the following news article:", "input": "x"}]`), 0o644)
	smallVocab := filepath.Join(dir, "vocab101.onnx")
	noCache := filepath.Join(dir, "nocache.onnx")
	if _, err := ort.Version(); err == nil {
		c := gptj.Configs[gptj.SizeTiny]
		c.Vocab, c.Hidden, c.Heads, c.Inner = 101, 16, 2, 32
		if err := gptj.BuildConfigFile(smallVocab, c, 1); err != nil {
			t.Fatal(err)
		}
		writeMeanModel(t, noCache, "input_ids")
	}
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	base := []string{"run", "gptj", "--tokenizer", tokDir, "--out", filepath.Join(dir, "out"), "--mode", "accuracy"}
	checkBadRuns(t, env, base, []badRun{
		{"missing data", []string{"--model", "synthetic:tiny", "--data", filepath.Join(dir, "none.json")}, 1, "download_dataset.sh", false, nil},
		{"malformed data", []string{"--model", "synthetic:tiny", "--data", malformed}, 1, `record 0 has no "output" field`, false, nil},
		{"missing model", []string{"--model", filepath.Join(dir, "none.onnx"), "--data", data}, 1, "model file", false, nil},
		{"bad tokenizer dir", []string{"--model", "synthetic:tiny", "--data", data, "--tokenizer", dir}, 1, "encoder.json", false, nil},
		{"bad length norm", []string{"--data", data, "--length-norm", "tokens"}, 2, "--length-norm", false, nil},
		{"vocab mismatch", []string{"--model", smallVocab, "--data", data}, 1, "the model has 101 vocabulary rows but the tokenizer has 50257 ids", true, nil},
		{"no kv cache", []string{"--model", noCache, "--data", data}, 1, "takes no past_key_values", true, nil},
	})
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"dataset", "verify", "cnndm", "--data", data}, 1, "has 2 records, want 13368"},
		{[]string{"dataset", "verify", "cnndm", "--data", data, "--partial", "--tokenizer", tokDir}, 0, "OK"},
		{[]string{"dataset", "verify", "cnndm", "--data", malformed, "--partial"}, 1, "not a cnn_eval.json"},
		{[]string{"accuracy", "gptj", "--log", filepath.Join(dir, "none.json"), "--data", data, "--tokenizer", tokDir}, 1, "no such file"},
		{[]string{"accuracy", "gptj", "--data", data}, 2, "--log FILE and --data PATH are required"},
		{[]string{"accuracy", "gptj", "--log", "x", "--data", data, "--dtype", "float32"}, 2, "want int64 or int32"},
	} {
		code, out := runMlperf(t, env, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s", tc.args, code, tc.code, tc.want, out)
		}
	}
}
