package main

// The reasoning benchmarks on remote engines through the CLI: gpt-oss-120b
// against a fake SGLang /generate server in the real wire format, and
// DeepSeek-R1 against a fake chat server and a real ollama, answering
// with recorded outputs whose scores are known.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/reasoning"
	"github.com/mlperf-go/inference/internal/pynum"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// needO200k returns gpt-oss's tokenizer, skipping the test where make
// setup has not installed it.
func needO200k(t *testing.T) *tokenizer.O200k {
	t.Helper()
	tok, err := tokenizer.LoadO200kHarmony(spec.DepsPath("gptoss"))
	if err != nil {
		t.Skipf("gpt-oss tokenizer not installed (make setup): %v", err)
	}
	return tok
}

// answerKey decides which recorded output a fake engine gives a row:
// the right one for the first question of each source (in row order),
// a wrong one for the others, or the right one everywhere with allRight.
type answerKey struct {
	rows     map[string]reasoning.Row // by the prompt ids' key
	first    map[string]string        // the first question of each source
	allRight bool
}

func idsKey(ids []int32) string { return fmt.Sprint(ids) }

// newAnswerKey reads the data set files a fake engine answers.
func newAnswerKey(t *testing.T, allRight bool, paths ...string) *answerKey {
	t.Helper()
	k := &answerKey{rows: map[string]reasoning.Row{}, first: map[string]string{}, allRight: allRight}
	for _, p := range paths {
		s, err := reasoning.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Rows {
			k.rows[idsKey(r.TokInput)] = r
			if _, ok := k.first[r.Dataset]; !ok {
				k.first[r.Dataset] = r.Question
			}
		}
	}
	return k
}

// right reports whether r gets the right answer.
func (k *answerKey) right(r reasoning.Row) bool {
	return k.allRight || k.first[r.Dataset] == r.Question
}

// final is the answer text of r in its source's format: right, or wrong
// (another letter, another number, a program printing the difference).
func final(t *testing.T, r reasoning.Row, right bool) string {
	fam, _ := reasoning.Family(r.Dataset)
	switch fam {
	case "gpqa", "mmlu_pro", "mmlu":
		l := r.GroundTruth
		if !right {
			l = string(rune('A' + (int(l[0]-'A')+1)%4)) // another of A to D
		}
		return "Answer: " + l
	case "aime", "math500":
		v, err := strconv.Atoi(r.GroundTruth)
		if err != nil {
			t.Errorf("%s: ground truth %q", r.Dataset, r.GroundTruth)
		}
		if !right {
			v = (v + 1) % 1000
		}
		return fmt.Sprintf("The answer is $\\boxed{%d}$.", v)
	}
	op := "+"
	if !right {
		op = "-"
	}
	return "```python\na, b = map(int, input().split())\nprint(a " + op + " b)\n```"
}

// harmonyOutput is a gpt-oss output: analysis padded with " step" until
// the ids number at least pad, then the final answer, ending <|return|>.
func harmonyOutput(tok *tokenizer.O200k, answer string, pad int) []int32 {
	head := "<|channel|>analysis<|message|>Work it out."
	tail := "<|end|><|start|>assistant<|channel|>final<|message|>" + answer + "<|return|>"
	ids := tok.Encode(head+tail, false)
	if n := pad - len(ids); n > 0 {
		ids = tok.Encode(head+strings.Repeat(" step", n)+tail, false)
	}
	return ids
}

// fakeSGLang is an SGLang server as the reference's backend talks to it:
// /get_model_info, and /generate taking input_ids and sampling_params
// (refused unless they are generation_config.json's: temperature 1,
// top_k -1, top_p 1) and streaming cumulative output_ids with
// meta_info.completion_tokens, as SGLang does by default, 100 ids a
// chunk. It answers each prompt of key with the recorded output of at
// least pad ids (cut at max_new_tokens).
type fakeSGLang struct {
	tok      *tokenizer.O200k
	key      *answerKey
	pad      int
	requests atomic.Int64
	mu       sync.Mutex
	outs     map[string][]int32 // the ids sent, by prompt
}

func (f *fakeSGLang) start(t *testing.T) string {
	f.outs = map[string][]int32{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/get_model_info" {
			io.WriteString(w, `{"model_path":"openai/gpt-oss-120b","is_generation":true}`)
			return
		}
		var req struct {
			InputIDs       []int32 `json:"input_ids"`
			Text           *string `json:"text"`
			Stream         bool    `json:"stream"`
			SamplingParams struct {
				MaxNewTokens int      `json:"max_new_tokens"`
				Temperature  *float64 `json:"temperature"`
				TopK         *int     `json:"top_k"`
				TopP         *float64 `json:"top_p"`
			} `json:"sampling_params"`
		}
		sp := &req.SamplingParams
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<24)).Decode(&req); err != nil || r.URL.Path != "/generate" || !req.Stream || req.Text != nil ||
			sp.Temperature == nil || *sp.Temperature != 1 || sp.TopK == nil || *sp.TopK != -1 || sp.TopP == nil || *sp.TopP != 1 || sp.MaxNewTokens < 1 {
			http.Error(w, fmt.Sprintf("bad request %+v %v", req, err), 400)
			return
		}
		row, ok := f.key.rows[idsKey(req.InputIDs)]
		if !ok {
			http.Error(w, "prompt not in the data set", 400)
			return
		}
		f.requests.Add(1)
		out := harmonyOutput(f.tok, final(t, row, f.key.right(row)), f.pad)
		finish := `{"type":"stop","matched":200002}`
		if len(out) > sp.MaxNewTokens {
			out, finish = out[:sp.MaxNewTokens], fmt.Sprintf(`{"type":"length","length":%d}`, sp.MaxNewTokens)
		}
		f.mu.Lock()
		f.outs[idsKey(req.InputIDs)] = out
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		for end := min(100, len(out)); ; end = min(end+100, len(out)) {
			fr := "null"
			if end == len(out) {
				fr = finish
			}
			b, _ := json.Marshal(out[:end])
			txt, _ := json.Marshal(f.tok.Decode(out[:end], tokenizer.DecodeOptions{SkipSpecial: true}))
			fmt.Fprintf(w, "data: {\"text\":%s,\"output_ids\":%s,\"meta_info\":{\"id\":\"r\",\"finish_reason\":%s,\"prompt_tokens\":%d,\"completion_tokens\":%d}}\n\n", txt, b, fr, len(req.InputIDs), end)
			w.(http.Flusher).Flush()
			if end == len(out) {
				break
			}
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// gptossData writes the synthetic gpt-oss sets (and their LiveCodeBench
// problems) into dir with `mlperf dataset synth`.
func gptossData(t *testing.T, dir string) {
	t.Helper()
	if code, msg := runMlperf(t, nil, "dataset", "synth", "gpt-oss-120b", "-o", dir); code != 0 {
		t.Fatalf("dataset synth: %s", msg)
	}
}

var (
	gptossFinal = regexp.MustCompile(`'exact_match': ([0-9.]+)`)
	gptossTPS   = regexp.MustCompile(`'tokens_per_sample': ([0-9.e+]+)`)
)

// TestRunGPTOSSSGLangScoresRecordedOutputs: `mlperf run gpt-oss-120b
// --backend sglang` sends the accuracy set's Harmony ids as input_ids
// with the reference's sampling, in Offline and Server; the fake engine
// answers the first question of each source right and the second wrong
// (a wrong letter, a wrong number, a program printing the difference, run
// in the sandbox on the synthetic LiveCodeBench tests), so every source
// scores half its repeats and the final score is 50.000; the logged ids
// are the engine's output_ids, Harmony markers included, and
// tokens_per_sample their mean length.
func TestRunGPTOSSSGLangScoresRecordedOutputs(t *testing.T) {
	tok := needO200k(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	gptossData(t, data)
	f := &fakeSGLang{tok: tok, key: newAnswerKey(t, false, filepath.Join(data, "acc", "acc_eval_inputs.parquet"))}
	url := f.start(t)
	for _, sc := range []string{"Offline", "Server"} {
		out := filepath.Join(dir, sc)
		code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache"), childRun}, "run", "gpt-oss-120b", "--backend", "sglang", "--endpoint", url,
			"--data", data, "--scenario", sc, "--mode", "accuracy", "--qps", "100", "--max-new-tokens", "200", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", sc, code, log)
		}
		if m := gptossFinal.FindStringSubmatch(log); m == nil || m[1] != "50.000" {
			t.Errorf("%s: exact_match %v, want 50.000 (every source half right):\n%s", sc, m, log)
		}
		for _, want := range []string{"aime25                           8       16        8       1.00     50.00%", "gpqa_diamond                     5       10        5       1.00     50.00%",
			"livecodebench_v6                 3        6        3       1.00     50.00%", "FINAL SCORE: 50.00% (3.00/6.00)", "prompts sent as token ids (input_ids)", "temperature 1, top_p 1, top_k -1"} {
			if !strings.Contains(log, want) {
				t.Errorf("%s: the log lacks %q:\n%s", sc, want, log)
			}
		}
		entries := readAccLog(t, filepath.Join(out, "mlperf_log_accuracy.json"))
		if len(entries) != 32 {
			t.Fatalf("%s: %d accuracy log entries, want the set's 32", sc, len(entries))
		}
		total := 0
		f.mu.Lock()
		for _, e := range entries {
			got := idsOf(t, e.Data)
			total += len(got)
			if got[len(got)-1] != tokenizer.HarmonyReturn || !containsID(got, tokenizer.HarmonyChannel) {
				t.Errorf("%s: qsl_idx %d: ids %v lack the Harmony markers", sc, e.QSLIdx, got)
			}
		}
		f.mu.Unlock()
		want := pynum.FloatRepr(float64(total) / 32)
		if m := gptossTPS.FindStringSubmatch(readFile(t, filepath.Join(out, "accuracy.txt"))); m == nil || m[1] != want {
			t.Errorf("%s: tokens_per_sample %v, want %s", sc, m, want)
		}
	}
	if n := f.requests.Load(); n != 64 {
		t.Errorf("%d requests, want 32 per scenario", n)
	}
}

func containsID(ids []int32, id int32) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gptossCompliance runs `mlperf compliance test07|test09 gpt-oss-120b
// --backend sglang --endpoint …` against a fake engine answering the
// synthetic sets (every answer right, or the second question of each
// source wrong; outputs of at least pad ids); it returns the exit status,
// the log and the results folder holding TEST0X.
func gptossCompliance(t *testing.T, tok *tokenizer.O200k, dir, data, test string, allRight bool, pad int) (int, string, string) {
	t.Helper()
	f := &fakeSGLang{tok: tok, pad: pad, key: newAnswerKey(t, allRight, filepath.Join(data, "acc", "acc_eval_compliance_gpqa.parquet"), filepath.Join(data, "perf", "perf_eval_ref.parquet"))}
	url := f.start(t)
	results := filepath.Join(dir, fmt.Sprintf("%s-%v-%d", test, allRight, pad))
	os.MkdirAll(results, 0o755)
	// The audits' one pass is over their reference sets (990 and 6396
	// rows, which the run's user.conf gets by itself); these synthetic
	// sets are smaller, so the user.conf says their size.
	rows := map[string]int{"test07": 10, "test09": 5}[test]
	userConf := filepath.Join(results, "user.conf")
	os.WriteFile(userConf, fmt.Appendf(nil, "gpt-oss-120b.*.performance_sample_count_override = %d\n", rows), 0o644)
	code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache"), childRun}, "compliance", test, "gpt-oss-120b", "--results", results,
		"--work", filepath.Join(results, "work"), "--backend", "sglang", "--endpoint", url, "--data", data, "--user-conf", userConf)
	return code, log, results
}

// TestComplianceTEST07GPTOSSAgainstSGLang: `mlperf compliance test07
// gpt-oss-120b` runs the GPQA compliance set (10 synthetic rows) in
// performance mode against the fake engine and scores it as
// run_verification.py does: every answer right scores 100.0 ≥ 60.698 and
// passes (exit 0), the second question wrong scores 50.0 and fails
// (exit 1).
func TestComplianceTEST07GPTOSSAgainstSGLang(t *testing.T) {
	tok := needO200k(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	gptossData(t, data)
	for _, c := range []struct {
		allRight bool
		code     int
		score    string
		pass     string
	}{{true, 0, "100.0", "True"}, {false, 1, "50.0", "False"}} {
		code, log, results := gptossCompliance(t, tok, dir, data, "test07", c.allRight, 0)
		if code != c.code {
			t.Fatalf("all right %v: exit %d, want %d\n%s", c.allRight, code, c.code, log)
		}
		v := readFile(t, filepath.Join(results, "TEST07", "verify_accuracy.txt"))
		for _, want := range []string{"Accuracy score: " + c.score + "\n", "Accuracy threshold: 60.698\n", "Accuracy check pass: " + c.pass + "\n"} {
			if !strings.Contains(v+log, want) {
				t.Errorf("all right %v: no %q in verify_accuracy.txt or the log:\n%s\n%s", c.allRight, want, v, log)
			}
		}
	}
}

// TestComplianceTEST09GPTOSSAgainstSGLang: `mlperf compliance test09
// gpt-oss-120b` runs the performance set against the fake engine: outputs
// of 1278 ids (the reference's mean) pass (exit 0, TEST PASS), of 40 ids
// fail the 1150.38 lower bound (exit 1, TEST FAIL).
func TestComplianceTEST09GPTOSSAgainstSGLang(t *testing.T) {
	tok := needO200k(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	gptossData(t, data)
	for _, c := range []struct {
		pad  int
		code int
		want string
	}{{1278, 0, "TEST PASS"}, {40, 1, "TEST FAIL"}} {
		code, log, results := gptossCompliance(t, tok, dir, data, "test09", true, c.pad)
		if code != c.code {
			t.Fatalf("pad %d: exit %d, want %d\n%s", c.pad, code, c.code, log)
		}
		if v := readFile(t, filepath.Join(results, "TEST09", "verify_output_len.txt")); !strings.Contains(v, c.want) {
			t.Errorf("pad %d: verify_output_len.txt lacks %q:\n%s", c.pad, c.want, v)
		}
	}
}

// needDeepSeek returns DeepSeek-R1's tokenizer, skipping the test where
// make setup has not installed it.
func needDeepSeek(t *testing.T) *tokenizer.DeepSeek {
	t.Helper()
	tok, err := tokenizer.LoadDeepSeekR1(spec.DepsPath("deepseek"))
	if err != nil {
		t.Skipf("DeepSeek tokenizer not installed (make setup): %v", err)
	}
	return tok
}

// r1Output is a DeepSeek-R1 output: reasoning, </think>, the answer.
func r1Output(answer string) string {
	return r1Padded(answer, 0)
}

// r1Padded is r1Output with the reasoning padded by n " step" words.
func r1Padded(answer string, n int) string {
	return "Let me work it out." + strings.Repeat(" step", n) + "\n</think>\n\n" + answer
}

// fakeR1Chat is an OpenAI-compatible server that takes text only (a
// prompt of ids on /v1/completions is refused with 400, as ollama does)
// and answers /v1/chat/completions, streamed, when the request carries
// the reference's sampling (temperature 0, top_p 1, seed 42): the user
// message is a row's text_input, the answer its recorded output (its
// reasoning padded to at least pad ids), the first token in a chunk of
// its own, then 64 tokens a chunk.
type fakeR1Chat struct {
	tok      *tokenizer.DeepSeek
	key      *answerKey // by text_input
	pad      int
	requests atomic.Int64
	mu       sync.Mutex
	outs     map[string][]int32 // the answers, by text_input
}

// output is the ids the fake engine answers row with.
func (f *fakeR1Chat) output(t *testing.T, row reasoning.Row) []int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ids, ok := f.outs[row.TextInput]; ok {
		return ids
	}
	answer := final(t, row, f.key.right(row))
	ids := f.tok.Encode(r1Output(answer), false)
	if n := f.pad - len(ids); n > 0 {
		ids = f.tok.Encode(r1Padded(answer, n), false)
	}
	if f.outs == nil {
		f.outs = map[string][]int32{}
	}
	f.outs[row.TextInput] = ids
	return ids
}

func (f *fakeR1Chat) start(t *testing.T) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"deepseek-r1","object":"model"}]}`)
			return
		case "/v1/completions":
			http.Error(w, `{"error":{"message":"prompt must be a string"}}`, 400)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
			MaxTokens   int      `json:"max_tokens"`
			Temperature *float64 `json:"temperature"`
			TopP        *float64 `json:"top_p"`
			Seed        *int64   `json:"seed"`
			Stream      bool     `json:"stream"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<24)).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" || !req.Stream ||
			len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Temperature == nil || *req.Temperature != 0 ||
			req.TopP == nil || *req.TopP != 1 || req.Seed == nil || *req.Seed != 42 || req.MaxTokens < 1 {
			http.Error(w, fmt.Sprintf("bad request %+v %v", req, err), 400)
			return
		}
		row, ok := f.key.rows[req.Messages[0].Content]
		if !ok {
			http.Error(w, "message not in the data set", 400)
			return
		}
		f.requests.Add(1)
		ids := f.output(t, row)
		ids = ids[:min(len(ids), req.MaxTokens)]
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < len(ids); {
			end := min(len(ids), i+64)
			if i == 0 {
				end = 1
			}
			b, _ := json.Marshal(f.tok.Decode(ids[i:end], tokenizer.DecodeOptions{}))
			fmt.Fprintf(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", b)
			i = end
		}
		fmt.Fprintf(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprintf(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", len(ids))
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// deepseekData writes n synthetic DeepSeek-R1 rows (and their
// LiveCodeBench problems) into dir with `mlperf dataset synth`, and
// returns the data set file.
func deepseekData(t *testing.T, dir string, n int) string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if code, msg := runMlperf(t, nil, "dataset", "synth", "deepseek-r1", "-o", dir, "-n", strconv.Itoa(n)); code != 0 {
		t.Fatalf("dataset synth: %s", msg)
	}
	return filepath.Join(dir, "mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl")
}

var r1Line = regexp.MustCompile(`\{'exact_match': ([0-9.]+), 'tokens_per_sample': ([0-9.e+]+), 'num-samples': (\d+)\}`)

// TestRunDeepSeekR1ChatScoresRecordedOutputs: `mlperf run deepseek-r1
// --backend openai` against a server that takes text only sends each
// row's text_input as the user message of /v1/chat/completions with the
// reference's sampling, in Offline and Server; the server answers the
// first question of each of the five sources right and the second wrong
// (10 rows: a wrong letter, a wrong number, a program printing the
// difference, run in the sandbox), so exact_match is 50.0; the logged ids
// are BOS, then the tokenizer's ids over the whole streamed text
// (</think> as its id), as the reference's SGLang backend logs them, and
// tokens_per_sample their mean length.
func TestRunDeepSeekR1ChatScoresRecordedOutputs(t *testing.T) {
	tok := needDeepSeek(t)
	dir := t.TempDir()
	path := deepseekData(t, filepath.Join(dir, "data"), 10)
	set, err := reasoning.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	key := &answerKey{rows: map[string]reasoning.Row{}, first: map[string]string{}}
	for _, r := range set.Rows {
		key.rows[r.TextInput] = r
		if _, ok := key.first[r.Dataset]; !ok {
			key.first[r.Dataset] = r.Question
		}
	}
	f := &fakeR1Chat{tok: tok, key: key}
	url := f.start(t)
	for _, sc := range []string{"Offline", "Server"} {
		out := filepath.Join(dir, sc)
		code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache"), childRun}, "run", "deepseek-r1", "--backend", "openai", "--endpoint", url,
			"--data", path, "--scenario", sc, "--mode", "accuracy", "--qps", "100", "--max-new-tokens", "100", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", sc, code, log)
		}
		for _, want := range []string{"prompts sent as text, as a user message to /v1/chat/completions", "greedy, seed 42, max_tokens 100"} {
			if !strings.Contains(log, want) {
				t.Errorf("%s: the log lacks %q:\n%s", sc, want, log)
			}
		}
		entries := readAccLog(t, filepath.Join(out, "mlperf_log_accuracy.json"))
		if len(entries) != 10 {
			t.Fatalf("%s: %d accuracy log entries, want 10", sc, len(entries))
		}
		total := 0
		for _, e := range entries {
			got := idsOf(t, e.Data)
			total += len(got)
			r := set.Rows[e.QSLIdx]
			if want := tok.Encode(r1Output(final(t, r, key.right(r))), true); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: qsl_idx %d: ids %v, want the answer's %v", sc, e.QSLIdx, got, want)
			}
		}
		m := r1Line.FindStringSubmatch(log)
		if m == nil || m[1] != "50.0" || m[2] != pynum.FloatRepr(float64(total)/10) || m[3] != "10" {
			t.Errorf("%s: accuracy line %v, want exact_match 50.0, tokens_per_sample %s, 10 samples:\n%s", sc, m, pynum.FloatRepr(float64(total)/10), log)
		}
	}
	if n := f.requests.Load(); n != 20 {
		t.Errorf("%d chat requests, want 10 per scenario", n)
	}
}

// TestRunDeepSeekR1Ollama is the real-engine test: ollama serving a tiny
// Llama over DeepSeek-R1's vocabulary, merges and pre-tokenizer with R1's
// chat template. ollama takes text only, so `mlperf run deepseek-r1
// --backend openai` finds it and sends text_input as the chat message
// (the template applied by the engine); Offline and Server reach the
// scorer's line over 5 samples (one per source), with the same greedy,
// seeded ids in both scenarios, each within DeepSeek's vocabulary: BOS
// and the tokenizer's ids over the streamed text.
func TestRunDeepSeekR1Ollama(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	tok := needDeepSeek(t)
	addr := ollamatest.StartBPE(t, ollamatest.BPEConfig{Vocab: tok, Pre: "deepseek-v3", EOS: tokenizer.DeepSeekEOSID}, 2,
		"TEMPLATE \"\"\"<｜User｜>{{ .Prompt }}<｜Assistant｜><think>\n\"\"\"", "PARAMETER repeat_penalty 1", "PARAMETER num_thread 1")
	dir := t.TempDir()
	byScenario := map[string]map[int][]int32{}
	for _, sc := range []string{"Offline", "Server"} {
		out := filepath.Join(dir, sc)
		code, log := runMlperf(t, []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache"), childRun}, "run", "deepseek-r1", "--backend", "openai", "--endpoint", addr,
			"--served-model", ollamatest.Model, "--data", "synthetic", "--count", "5", "--scenario", sc, "--mode", "accuracy", "--qps", "20", "--max-new-tokens", "8", "--out", out)
		m := r1Line.FindStringSubmatch(log)
		if code != 0 || m == nil || m[3] != "5" {
			t.Fatalf("%s: exit %d\n%s", sc, code, log)
		}
		if !strings.Contains(log, "prompts sent as text, as a user message to /v1/chat/completions (the server applies the model's chat template) (refused token ids: http://"+addr) {
			t.Errorf("%s: the log does not say that ollama takes text:\n%s", sc, log)
		}
		ids, total := map[int][]int32{}, 0
		for _, e := range readAccLog(t, filepath.Join(out, "mlperf_log_accuracy.json")) {
			got := idsOf(t, e.Data)
			// BOS, then the tokenizer's ids over the text ollama streamed
			// (up to 8 tokens of it; re-encoded, their count may differ).
			if len(got) < 2 || got[0] != tokenizer.DeepSeekBOSID {
				t.Errorf("%s: qsl_idx %d: ids %v, want BOS then the text's ids", sc, e.QSLIdx, got)
			} else if re := tok.Encode(tok.Decode(got[1:], tokenizer.DecodeOptions{}), true); fmt.Sprint(re) != fmt.Sprint(got) {
				t.Errorf("%s: qsl_idx %d: ids %v are not the tokenizer's over their own text (%v)", sc, e.QSLIdx, got, re)
			}
			for _, id := range got {
				if id < 0 || id >= tokenizer.DeepSeekVocabSize {
					t.Errorf("%s: qsl_idx %d: id %d outside the vocabulary", sc, e.QSLIdx, id)
				}
			}
			ids[e.QSLIdx] = got
			total += len(got)
		}
		if len(ids) != 5 {
			t.Errorf("%s: %d samples in the accuracy log", sc, len(ids))
		}
		if want := pynum.FloatRepr(float64(total) / 5); m[2] != want {
			t.Errorf("%s: tokens_per_sample %s, want the log's mean %s", sc, m[2], want)
		}
		byScenario[sc] = ids
	}
	for i, ids := range byScenario["Offline"] {
		if fmt.Sprint(ids) != fmt.Sprint(byScenario["Server"][i]) {
			t.Errorf("qsl_idx %d: Offline %v, Server %v", i, ids, byScenario["Server"][i])
		}
	}
}

// reasoningTreeDump keeps the v6.1 tree of
// TestSubmissionReasoningV61AgreesWithTheMLCommonsChecker for
// scripts/goldens/submission_reasoning.py, which runs the MLCommons checker
// on it.
var reasoningTreeDump = flag.String("reasoning-tree-dump", "", "write the deepseek-r1 and gpt-oss-120b v6.1 tree to DIR/tree (for scripts/goldens/submission_reasoning.py)")

// reasoningChecker is the MLCommons checker's verdict and messages on the
// tree, recorded by scripts/goldens/submission_reasoning.py.
const reasoningChecker = "testdata/golden/reasoning_v61_checker.txt"

// shortRunGates are the checker's complaints about a run too short or a
// data set too small for a valid result: all the test tree may have.
var shortRunGates = regexp.MustCompile(`performance_sample_count, found \d+, needs to be >= |Required minimum samples per query not met by user config|` +
	`Test duration less than 600s in user config|Early stopping condition was not met|accurcy run does not cover all dataset|` +
	`^ERROR Some (performance|accuracy) checks Checks failed for|^ERROR NoResults |^ERROR SUMMARY: submission has errors$`)

// checkMessages are the ERROR and WARNING lines of `mlperf check`'s
// output, the tree's path written TREE, as the checker's are recorded.
func checkMessages(out, tree string) []string {
	var msgs []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ERROR ") || strings.HasPrefix(l, "WARNING ") {
			msgs = append(msgs, strings.ReplaceAll(l, tree, "TREE"))
		}
	}
	return msgs
}

// TestSubmissionReasoningV61AgreesWithTheMLCommonsChecker: `mlperf
// submission --round v6.1` writes one tree holding gpt-oss-120b (--backend
// sglang, against the fake SGLang engine) and deepseek-r1 (--backend
// openai, against the fake chat engine) in Offline (which the round
// requires), Server and Interactive (one of which it requires), with the
// compliance tests the round requires of each (TEST07 and TEST09;
// TEST06), 100 ms runs; the fake engines answer every question right with
// outputs of the references' mean length, so accuracy, tokens per sample,
// the latency bounds and the compliance tests pass. `mlperf check --round
// v6.1` reports the MLCommons checker's verdict and messages on such a
// tree, as scripts/goldens/submission_reasoning.py recorded them, and they
// are the short-run gates only (600 s, the data sets' sizes, early
// stopping).
func TestSubmissionReasoningV61AgreesWithTheMLCommonsChecker(t *testing.T) {
	gtok, dtok := needO200k(t), needDeepSeek(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "tree")
	if *reasoningTreeDump != "" {
		out = filepath.Join(*reasoningTreeDump, "tree")
	}
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache"), childRun}
	common := []string{"--round", "v6.1", "--scenarios", "Offline,Server,Interactive", "--qps", "100", "--submitter", "GoTest", "--system-name", "box",
		"--duration", "100ms", "--min-queries", "5", "--out", out}

	data := filepath.Join(dir, "gptoss")
	gptossData(t, data)
	g := &fakeSGLang{tok: gtok, pad: 1278, key: newAnswerKey(t, true, filepath.Join(data, "acc", "acc_eval_inputs.parquet"),
		filepath.Join(data, "acc", "acc_eval_compliance_gpqa.parquet"), filepath.Join(data, "perf", "perf_eval_ref.parquet"))}
	// TEST07 with performance_issue_unique needs performance_sample_count
	// within the synthetic sets (see gptossCompliance).
	userConf := filepath.Join(dir, "user.conf")
	os.WriteFile(userConf, []byte("gpt-oss-120b.*.performance_sample_count_override = 5\n"), 0o644)
	code, log := runMlperf(t, env, append([]string{"submission", "--benchmark", "gpt-oss-120b", "--backend", "sglang", "--endpoint", g.start(t),
		"--data", data, "--user-conf", userConf, "--weights", "openai/gpt-oss-120b"}, common...)...)
	if code != 0 {
		t.Fatalf("gpt-oss-120b submission: exit %d\n%s", code, log)
	}

	path := deepseekData(t, filepath.Join(dir, "deepseek"), 10)
	set, err := reasoning.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	key := &answerKey{rows: map[string]reasoning.Row{}, allRight: true}
	for _, r := range set.Rows {
		key.rows[r.TextInput] = r
	}
	// 3886 ids: the reference's tokens per sample (3886.2274).
	r1 := &fakeR1Chat{tok: dtok, key: key, pad: 3886}
	code, log = runMlperf(t, env, append([]string{"submission", "--benchmark", "deepseek-r1", "--backend", "openai", "--endpoint", r1.start(t),
		"--data", path, "--weights", "deepseek-ai/DeepSeek-R1"}, common...)...)
	if code != 0 {
		t.Fatalf("deepseek-r1 submission: exit %d\n%s", code, log)
	}

	results := filepath.Join(out, "closed", "GoTest", "results", "box")
	for _, sc := range []string{"Offline", "Server", "Interactive"} {
		first := "True"
		if sc == "Offline" {
			first = "Skipped" // run_verification.py checks the first token where it is timed
		}
		for _, c := range []struct{ bench, file, want string }{
			{"gpt-oss-120b", "accuracy/accuracy.txt", "'exact_match': 100.000\n'tokens_per_sample': 1278.0\n"},
			{"gpt-oss-120b", "TEST07/verify_accuracy.txt", "Accuracy score: 100.0\nAccuracy threshold: 60.698\nAccuracy check pass: True\nTEST PASS"},
			{"gpt-oss-120b", "TEST09/verify_output_len.txt", "Mean output tokens: 1278.00\nMin threshold: 1150.38\nMax threshold: 1406.02\nMin check pass: True\nMax check pass: True\n\nTEST PASS"},
			// BOS and the 3887 ids of the padded text, within 90–110 % of 3886.2274.
			{"deepseek-r1", "accuracy/accuracy.txt", "{'exact_match': 100.0, 'tokens_per_sample': 3888.0, 'num-samples': 10}"},
			{"deepseek-r1", "TEST06/verify_accuracy.txt", "First token check pass: " + first + "\nEOS check pass: True\nSample length check pass: True\n"},
		} {
			if v := readFile(t, filepath.Join(results, c.bench, sc, c.file)); !strings.Contains(v, c.want) {
				t.Errorf("%s %s/%s lacks %q:\n%s", c.bench, sc, c.file, c.want, v)
			}
		}
	}
	if *reasoningTreeDump != "" {
		return
	}

	golden := strings.Split(strings.TrimSuffix(readFile(t, reasoningChecker), "\n"), "\n")
	for len(golden) > 0 && strings.HasPrefix(golden[0], "#") {
		golden = golden[1:]
	}
	if len(golden) == 0 || golden[0] != "verdict: FAIL" {
		t.Fatalf("%s: the checker's verdict %q, want FAIL (the short-run gates)", reasoningChecker, golden)
	}
	want := golden[1:]
	code, msg := runMlperf(t, nil, "check", out, "--round", "v6.1")
	if code == 0 {
		t.Errorf("check passed a tree of 100 ms runs:\n%s", msg)
	}
	got := checkMessages(msg, out)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check's messages:\n%s\nthe MLCommons checker's (%s):\n%s", strings.Join(got, "\n"), reasoningChecker, strings.Join(want, "\n"))
	}
	gates := 0
	for _, l := range got {
		if !shortRunGates.MatchString(l) {
			t.Errorf("check: beyond the short-run gates: %s", l)
		}
		if strings.Contains(l, "Test duration less than 600s") {
			gates++
		}
	}
	if gates != 6 {
		t.Errorf("%d scenarios found shorter than 600 s, want all 6:\n%s", gates, msg)
	}
}
