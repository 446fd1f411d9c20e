package main

// Llama 3.1 8B on remote engines through the CLI: two real ollama
// processes behind --endpoint A --endpoint B, this suite's own server
// (token-id prompts and ids back), and an SGLang /generate server.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/remote/openai/ollamatest"
)

// llama3Remote runs `mlperf run llama3.1-8b` with a remote backend on the
// synthetic data set (4 samples, 8 new tokens) in this process.
func llama3Remote(t *testing.T, cache, out string, args ...string) (int, string) {
	t.Helper()
	base := []string{"run", "llama3.1-8b", "--data", "synthetic", "--count", "4", "--max-new-tokens", "8", "--out", out}
	return runMlperf(t, []string{"MLPERF_CACHE_DIR=" + cache}, append(base, args...)...)
}

// accIDs reads a run's accuracy log as ids by qsl_idx, each checked to
// lie in the Llama 3.1 vocabulary and to number 1 to 8.
func accIDs(t *testing.T, out string) map[int][]int32 {
	t.Helper()
	ids := map[int][]int32{}
	for _, e := range readAccLog(t, filepath.Join(out, "mlperf_log_accuracy.json")) {
		got := idsOf(t, e.Data)
		if len(got) == 0 || len(got) > 8 {
			t.Errorf("%s: qsl_idx %d: %d ids", out, e.QSLIdx, len(got))
		}
		for _, id := range got {
			if id < 0 || id >= tokenizer.Llama3VocabSize {
				t.Errorf("%s: qsl_idx %d: id %d outside the vocabulary", out, e.QSLIdx, id)
			}
		}
		ids[e.QSLIdx] = got
	}
	return ids
}

// detailEndpoints returns the mlperfgo_endpoints entry of a run's detail
// log: requests by endpoint.
func detailEndpoints(t *testing.T, out string) map[string]int64 {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "mlperf_log_detail.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), ":::MLLOG ")
		if !ok || !strings.Contains(line, `"mlperfgo_endpoints"`) {
			continue
		}
		var e struct {
			Value []struct {
				Endpoint  string `json:"endpoint"`
				Requests  int64  `json:"requests"`
				Errors    int64  `json:"errors"`
				RoundTrip struct {
					Count int64 `json:"count"`
				} `json:"round_trip"`
				TTFT *struct {
					Count int64 `json:"count"`
				} `json:"ttft"`
			} `json:"value"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		m := map[string]int64{}
		for _, v := range e.Value {
			if v.Errors != 0 || v.RoundTrip.Count != v.Requests || v.TTFT == nil || v.TTFT.Count != v.Requests {
				t.Errorf("endpoint %+v", v)
			}
			m[v.Endpoint] = v.Requests
		}
		return m
	}
	t.Fatalf("%s: no mlperfgo_endpoints in the detail log", out)
	return nil
}

// TestRunLlama3TwoOllamaEndpoints is the real-engine test: the
// tiny Llama 3.1 GGUF that `mlperf model build llama3.1-8b --format gguf`
// writes, served by two ollama processes behind --endpoint A --endpoint
// B. Offline and Server accuracy runs reach the ROUGE line with both
// endpoints taking samples and the same greedy ids in both scenarios
// (ollama takes text: the client finds it and says so); the interactive
// variant's Server performance run reports token latencies and both
// endpoints' shares in the detail log.
func TestRunLlama3TwoOllamaEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-engine test")
	}
	if ollamatest.Binary() == "" {
		t.Skip("ollama is not installed (make setup); skipping the real-engine test")
	}
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	gguf := filepath.Join(dir, "tiny.gguf")
	if code, msg := runMlperf(t, nil, "model", "build", "llama3.1-8b", "--format", "gguf", "-o", gguf); code != 0 {
		t.Fatalf("model build --format gguf: %s", msg)
	}
	a := ollamatest.StartFile(t, gguf, 4, "PARAMETER repeat_penalty 1", "PARAMETER num_thread 1")
	b := ollamatest.StartFile(t, gguf, 4, "PARAMETER repeat_penalty 1", "PARAMETER num_thread 1")
	cache := filepath.Join(dir, "cache")
	remote := []string{"--backend", "openai", "--endpoint", a, "--endpoint", b, "--served-model", ollamatest.Model}
	byScenario := map[string]map[int][]int32{}
	for _, sc := range []string{"Offline", "Server"} {
		out := filepath.Join(dir, sc)
		code, log := llama3Remote(t, cache, out, append(slices.Clone(remote), "--scenario", sc, "--mode", "accuracy", "--qps", "20")...)
		if m := rougeLine.FindStringSubmatch(log); code != 0 || m == nil || m[1] != "4" {
			t.Fatalf("%s: exit %d\n%s", sc, code, log)
		}
		if !strings.Contains(log, "prompts sent as text (refused token ids: http://"+a) {
			t.Errorf("%s: the log does not say that ollama takes text:\n%s", sc, log)
		}
		byScenario[sc] = accIDs(t, out)
		if len(byScenario[sc]) != 4 {
			t.Errorf("%s: %d samples in the accuracy log", sc, len(byScenario[sc]))
		}
	}
	for i, ids := range byScenario["Offline"] {
		if !slices.Equal(ids, byScenario["Server"][i]) {
			t.Errorf("qsl_idx %d: Offline %v, Server %v", i, ids, byScenario["Server"][i])
		}
	}
	out := filepath.Join(dir, "interactive")
	code, log := llama3Remote(t, cache, out, append(slices.Clone(remote), "--model-name", "llama3_1-8b-interactive", "--scenario", "Server",
		"--qps", "10", "--duration", "500ms", "--min-queries", "8")...)
	if code != 0 {
		t.Fatalf("interactive: exit %d\n%s", code, log)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "mlperf_log_summary.txt"))
	for _, k := range []string{"50.00 percentile first token latency (ns)", "50.00 percentile time to output token (ns)"} {
		if v := summaryValue(t, string(sum), k); v <= 0 {
			t.Errorf("%s = %v", k, v)
		}
	}
	eps := detailEndpoints(t, out)
	if len(eps) != 2 || eps["http://"+a] == 0 || eps["http://"+b] == 0 || eps["http://"+a]+eps["http://"+b] < 8 {
		t.Errorf("endpoints in the detail log: %v", eps)
	}
	for _, ep := range []string{a, b} {
		if !strings.Contains(log, "endpoint http://"+ep+": ") {
			t.Errorf("stderr has no line of endpoint %s:\n%s", ep, log)
		}
	}
}

// TestRunLlama3AgainstServeWithIDs: `mlperf serve llama3.1-8b` takes the
// data set's token ids and returns its own; the remote run's ids are the
// local run's, sample by sample (same synthetic model, greedy). The
// server's chat endpoint applies the Llama 3 template.
func TestRunLlama3AgainstServeWithIDs(t *testing.T) {
	orttest.Need(t)
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	addr := startServeChild(t, []string{"MLPERF_CACHE_DIR=" + cache},
		"llama3.1-8b", "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--batch", "4")
	remoteOut := filepath.Join(dir, "remote")
	code, log := llama3Remote(t, cache, remoteOut, "--backend", "openai", "--endpoint", addr, "--mode", "accuracy")
	if m := rougeLine.FindStringSubmatch(log); code != 0 || m == nil || m[1] != "4" {
		t.Fatalf("remote: exit %d\n%s", code, log)
	}
	for _, want := range []string{"prompts sent as token ids (the servers take token ids)", "token ids of all 4 responses are the server's"} {
		if !strings.Contains(log, want) {
			t.Errorf("remote log lacks %q:\n%s", want, log)
		}
	}
	localOut := filepath.Join(dir, "local")
	code, log = llama3Remote(t, cache, localOut, "--model", "synthetic:tiny", "--threads", "1", "--mode", "accuracy")
	if code != 0 {
		t.Fatalf("local: exit %d\n%s", code, log)
	}
	remote, local := accIDs(t, remoteOut), accIDs(t, localOut)
	if len(local) != 4 {
		t.Fatalf("%d local samples", len(local))
	}
	for i, ids := range local {
		if !slices.Equal(ids, remote[i]) {
			t.Errorf("qsl_idx %d: local %v, remote %v", i, ids, remote[i])
		}
	}
	body := `{"model":"llama3.1-8b","messages":[{"role":"user","content":" Hi \n"}],"max_tokens":4}`
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Choices []struct {
			Message  struct{ Role, Content string }
			TokenIDs []int32 `json:"token_ids"`
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	// <|begin_of_text|>, the user's header, "Hi", <|eot_id|>, the
	// assistant's header: 11 ids (models/llama3's ChatIDs test).
	if err := json.Unmarshal(b, &r); err != nil || resp.StatusCode != 200 || len(r.Choices) != 1 || r.Choices[0].Message.Role != "assistant" ||
		r.Usage.PromptTokens != 11 || len(r.Choices[0].TokenIDs) != r.Usage.CompletionTokens || r.Usage.CompletionTokens < 1 {
		t.Errorf("chat: %d %v: %s", resp.StatusCode, err, b)
	}
}

// sglangServer answers SGLang's /get_model_info and streamed /generate as
// SGLang does by default (cumulative chunks: text and output_ids so far,
// meta_info.completion_tokens), generating the prompt's input_ids
// reversed; it counts the requests that came with input_ids.
func sglangServer(t *testing.T, withIDs *atomic.Int64) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/get_model_info" {
			io.WriteString(w, `{"model_path":"meta-llama/Llama-3.1-8B-Instruct","is_generation":true}`)
			return
		}
		var req struct {
			InputIDs       []int32 `json:"input_ids"`
			Stream         bool    `json:"stream"`
			SamplingParams struct {
				MaxNewTokens int     `json:"max_new_tokens"`
				Temperature  float64 `json:"temperature"`
			} `json:"sampling_params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/generate" || !req.Stream || len(req.InputIDs) == 0 || req.SamplingParams.Temperature != 0 {
			http.Error(w, fmt.Sprintf("bad request %+v %v", req, err), 400)
			return
		}
		withIDs.Add(1)
		out := slices.Clone(req.InputIDs)
		slices.Reverse(out)
		out = out[:min(len(out), req.SamplingParams.MaxNewTokens)]
		w.Header().Set("Content-Type", "text/event-stream")
		for k := range out {
			finish := "null"
			if k == len(out)-1 {
				finish = fmt.Sprintf(`{"type":"length","length":%d}`, k+1)
			}
			b, _ := json.Marshal(out[:k+1])
			fmt.Fprintf(w, "data: {\"text\":\"x\",\"output_ids\":%s,\"meta_info\":{\"id\":\"r\",\"finish_reason\":%s,\"prompt_tokens\":%d,\"completion_tokens\":%d}}\n\n", b, finish, len(req.InputIDs), k+1)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestRunLlama3SGLang: --backend sglang sends the data set's tok_input as
// input_ids to /generate and logs the server's output_ids.
func TestRunLlama3SGLang(t *testing.T) {
	needLlama3Tokenizer(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	var withIDs atomic.Int64
	url := sglangServer(t, &withIDs)
	out := filepath.Join(dir, "out")
	code, log := llama3Remote(t, cache, out, "--backend", "sglang", "--endpoint", url, "--mode", "accuracy")
	if m := rougeLine.FindStringSubmatch(log); code != 0 || m == nil || m[1] != "4" {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if withIDs.Load() != 4 || !strings.Contains(log, "SGLang /generate server(s) "+url+" serving meta-llama/Llama-3.1-8B-Instruct") ||
		!strings.Contains(log, "prompts sent as token ids (input_ids)") {
		t.Errorf("%d requests with input_ids; log:\n%s", withIDs.Load(), log)
	}
	recs, err := cnndm.LoadLlama3(filepath.Join(cache, "cnndm-llama3-synthetic-small", cnndm.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for i, ids := range accIDs(t, out) {
		want := slices.Clone(recs[i].TokInput)
		slices.Reverse(want)
		if !slices.Equal(ids, want[:8]) {
			t.Errorf("qsl_idx %d: %v, want the server's %v", i, ids, want[:8])
		}
	}
}
