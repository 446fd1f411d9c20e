package openai

// Fakes of the engines the client drives, speaking their wire formats as
// their sources define them: vLLM (vllm-project/vllm
// vllm/entrypoints/openai/completion/protocol.py and
// chat_completion/protocol.py: prompt as ids, return_token_ids giving
// token_ids per chunk and prompt_token_ids in the first, usage with
// stream_options), ollama v0.6.5 (openai middleware: prompt as a string
// only, text chunks, usage with include_usage; see the project's
// spec/ollama_gguf.md) and SGLang (sgl-project/sglang
// python/sglang/srt/entrypoints/http_server.py and
// managers/tokenizer_manager_components/output_processor.py: /generate
// with input_ids, chunks of text, output_ids and meta_info, cumulative
// or incremental).
//
// Every fake "generates" the prompt's ids reversed (ids of a text prompt:
// wIDs of its words), each id k written as the text "wk ".

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
)

// wIDs is the fakes' tokenizer: "w5 w17 " → 5, 17; other words → 0.
func wIDs(text string) []int32 {
	var ids []int32
	for _, w := range strings.Fields(text) {
		n, _ := strconv.Atoi(strings.TrimPrefix(w, "w"))
		ids = append(ids, int32(n))
	}
	return ids
}

// wText is the text of ids in the fakes' tokenizer.
func wText(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "w%d ", id)
	}
	return b.String()
}

// generated is what every fake generates for prompt ids: them reversed, at
// most max.
func generated(prompt []int32, max int) []int32 {
	out := slices.Clone(prompt)
	slices.Reverse(out)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// engine is a fake serving engine; its counters say what it was sent.
type engine struct {
	kind string // "vllm", "ollama", "sglang"
	// sglangIncremental: /generate chunks carry increments.
	sglangIncremental bool
	// wrongIDs, if set, replaces every generated id (a server running
	// another model).
	wrongIDs int32
	// delay holds every request this long before its stream.
	delay time.Duration
	// logprobIDs: vLLM writes the ids as logprobs "token_id:N" tokens,
	// not token_ids.
	logprobIDs bool

	idPrompts, textPrompts, chats, requests atomic.Int64
	conns                                   atomic.Int64
	srv                                     *httptest.Server
}

func startEngine(t *testing.T, e *engine) *engine {
	t.Helper()
	e.srv = httptest.NewUnstartedServer(e)
	e.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			e.conns.Add(1)
		}
	}
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	return e
}

func (e *engine) url() string { return e.srv.URL }

func apiErr(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": code}})
}

func (e *engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/v1/models" && e.kind != "sglang":
		io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
		return
	case r.URL.Path == "/get_model_info" && e.kind == "sglang":
		io.WriteString(w, `{"model_path":"org/m","is_generation":true}`)
		return
	}
	e.requests.Add(1)
	var req struct {
		Model          string          `json:"model"`
		Prompt         json.RawMessage `json:"prompt"`
		Messages       []struct{ Role, Content string }
		MaxTokens      int  `json:"max_tokens"`
		Stream         bool `json:"stream"`
		ReturnTokenIDs bool `json:"return_token_ids"`
		StreamOptions  *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		InputIDs       []int32 `json:"input_ids"`
		Text           *string `json:"text"`
		SamplingParams struct {
			MaxNewTokens int     `json:"max_new_tokens"`
			Temperature  float64 `json:"temperature"`
		} `json:"sampling_params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiErr(w, 400, err.Error())
		return
	}
	if e.delay > 0 {
		time.Sleep(e.delay)
	}
	if e.kind == "sglang" {
		e.sglang(w, req.InputIDs, req.Text, req.SamplingParams.MaxNewTokens, req.Stream)
		return
	}
	if req.Model != "m" {
		apiErr(w, 404, "model "+req.Model+" not found")
		return
	}
	var prompt []int32
	chat := r.URL.Path == "/v1/chat/completions"
	switch {
	case chat:
		if len(req.Messages) != 1 || req.Messages[0].Role != "user" {
			apiErr(w, 400, "want one user message")
			return
		}
		e.chats.Add(1)
		prompt = wIDs(req.Messages[0].Content)
	case r.URL.Path != "/v1/completions":
		apiErr(w, 404, "no "+r.URL.Path)
		return
	default:
		var s string
		if json.Unmarshal(req.Prompt, &s) == nil {
			e.textPrompts.Add(1)
			prompt = wIDs(s)
			break
		}
		if e.kind == "ollama" || json.Unmarshal(req.Prompt, &prompt) != nil {
			apiErr(w, 400, "prompt must be a string")
			return
		}
		e.idPrompts.Add(1)
	}
	out := generated(prompt, req.MaxTokens)
	if e.wrongIDs != 0 {
		for i := range out {
			out[i] = e.wrongIDs
		}
	}
	ids := req.ReturnTokenIDs && e.kind == "vllm"
	if !req.Stream {
		c := map[string]any{"index": 0, "text": wText(out), "finish_reason": "length"}
		if ids {
			c["token_ids"] = out
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "text_completion", "model": "m", "choices": []any{c},
			"usage": map[string]int{"prompt_tokens": len(prompt), "completion_tokens": len(out)}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		f.Flush()
	}
	object := "text_completion"
	if chat {
		object = "chat.completion.chunk"
		event(map[string]any{"object": object, "model": "m", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "finish_reason": nil}}})
	}
	for k, id := range out {
		c := map[string]any{"index": 0, "finish_reason": nil}
		if k == len(out)-1 {
			c["finish_reason"] = "length"
		}
		if chat {
			c["delta"] = map[string]any{"content": wText([]int32{id})}
		} else {
			c["text"] = wText([]int32{id})
		}
		if ids && e.logprobIDs {
			if chat {
				c["logprobs"] = map[string]any{"content": []any{map[string]any{"token": "token_id:" + strconv.Itoa(int(id)), "logprob": -0.1}}}
			} else {
				c["logprobs"] = map[string]any{"tokens": []string{"token_id:" + strconv.Itoa(int(id))}, "token_logprobs": []float64{-0.1}}
			}
		} else if ids {
			c["token_ids"] = []int32{id}
			if k == 0 {
				c["prompt_token_ids"] = prompt
			}
		}
		event(map[string]any{"id": "cmpl-1", "object": object, "model": "m", "choices": []any{c}})
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		event(map[string]any{"object": object, "model": "m", "choices": []any{}, "usage": map[string]int{"prompt_tokens": len(prompt), "completion_tokens": len(out)}})
	}
	done(w)
}

// done ends a stream as uvicorn does: [DONE] flushed as an event of its
// own, the end of the chunked body a moment later.
func done(w http.ResponseWriter) {
	io.WriteString(w, "data: [DONE]\n\n")
	w.(http.Flusher).Flush()
	time.Sleep(5 * time.Millisecond)
}

// sglang answers /generate: chunks of the text and output_ids so far
// (cumulative) or of this step (incremental), meta_info's
// completion_tokens always the count so far.
func (e *engine) sglang(w http.ResponseWriter, input []int32, text *string, max int, stream bool) {
	if text != nil {
		e.textPrompts.Add(1)
		input = wIDs(*text)
	} else {
		e.idPrompts.Add(1)
	}
	out := generated(input, max)
	if e.wrongIDs != 0 {
		for i := range out {
			out[i] = e.wrongIDs
		}
	}
	meta := func(n int, done bool) map[string]any {
		m := map[string]any{"id": "rid", "finish_reason": nil, "prompt_tokens": len(input), "completion_tokens": n, "cached_tokens": 0}
		if done {
			m["finish_reason"] = map[string]any{"type": "length", "length": n}
		}
		return m
	}
	if !stream {
		json.NewEncoder(w).Encode(map[string]any{"text": wText(out), "output_ids": out, "meta_info": meta(len(out), true)})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for k := range out {
		c := map[string]any{"text": wText(out[:k+1]), "output_ids": out[:k+1], "meta_info": meta(k+1, k == len(out)-1)}
		if e.sglangIncremental {
			c["text"], c["output_ids"] = wText(out[k:k+1]), out[k:k+1]
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		f.Flush()
	}
	done(w)
}

// prompts are the test samples: ids 10..13 with three more each, and the
// same as text.
func testPrompt(i loadgen.SampleIndex) (Prompt, error) {
	ids := []int32{int32(10 + i), 1, 2, 3}
	return Prompt{IDs: ids, Text: wText(ids)}, nil
}

// runSamples starts a SUT on cfg (test prompts, the fakes' tokenizer,
// max_tokens 3), checks the servers, issues n samples and returns their
// responses and first tokens.
func runSamples(t *testing.T, cfg Config, n int) (*SUT, *recorder) {
	t.Helper()
	if cfg.Prompt == nil {
		cfg.Prompt = testPrompt
	}
	cfg.Model, cfg.Encode = "m", wIDs
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = 3
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(n)
	var samples []loadgen.Sample
	for i := range n {
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(100 + i), Index: loadgen.SampleIndex(i % 4)})
	}
	s.IssueQuery(context.Background(), samples, rec)
	rec.wait(t)
	return s, rec
}

func decodeIDs(b []byte) []int32 {
	ids := make([]int32, len(b)/4)
	for i := range ids {
		ids[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return ids
}

// checkReversed checks that every response holds its prompt's ids
// reversed (at most 3) and reported the first of them first.
func checkReversed(t *testing.T, rec *recorder, n int) {
	t.Helper()
	for i := range n {
		id := loadgen.ResponseID(100 + i)
		r := rec.done[id]
		p, _ := testPrompt(loadgen.SampleIndex(i % 4))
		want := generated(p.IDs, 3)
		if r.Err != nil || !slices.Equal(decodeIDs(r.Data), want) || r.Tokens != len(want) {
			t.Errorf("sample %d: %v ids %v tokens %d, want %v", i, r.Err, decodeIDs(r.Data), r.Tokens, want)
		}
		if f := rec.first[id]; !slices.Equal(decodeIDs(f), want[:1]) {
			t.Errorf("sample %d: first token %v, want %v", i, decodeIDs(f), want[:1])
		}
	}
}

// vLLM takes the prompt's ids (the probe finds it), streams its ids back,
// and the response's ids are the server's: by token_ids or by logprobs
// tokens written as ids.
func TestVLLMGetsPromptIDsAndGivesItsIDs(t *testing.T) {
	for _, logprobs := range []bool{false, true} {
		e := startEngine(t, &engine{kind: "vllm", logprobIDs: logprobs})
		s, rec := runSamples(t, Config{Endpoints: []string{e.url()}, ProbeIDs: []int32{1, 2}, Vocab: 100,
			Chunk: func(string) []int32 { return []int32{99} }}, 4)
		checkReversed(t, rec, 4)
		if s.Form() != FormIDs || e.idPrompts.Load() != 5 || e.textPrompts.Load() != 0 { // 4 samples and the probe
			t.Errorf("logprobs %v: form %v, %d prompts as ids, %d as text; want ids only", logprobs, s.Form(), e.idPrompts.Load(), e.textPrompts.Load())
		}
		if server, text, _ := s.IDSources(); server != 4 || text != 0 {
			t.Errorf("logprobs %v: ids from the server %d, the text %d; want 4, 0", logprobs, server, text)
		}
		if !strings.Contains(s.FormNote(), "token ids (the servers take token ids)") {
			t.Errorf("FormNote = %q", s.FormNote())
		}
	}
}

// ollama refuses a prompt of ids: the probe learns it, prompts go as text
// and the ids are the tokenizer's over the streamed text.
func TestOllamaGetsTextAndItsTextIsTokenized(t *testing.T) {
	e := startEngine(t, &engine{kind: "ollama"})
	s, rec := runSamples(t, Config{Endpoints: []string{e.url()}, ProbeIDs: []int32{1, 2}, Vocab: 100}, 4)
	checkReversed(t, rec, 4)
	if s.Form() != FormText || e.textPrompts.Load() != 4 || e.idPrompts.Load() != 0 {
		t.Errorf("form %v, %d prompts as text, %d as ids; want text only", s.Form(), e.textPrompts.Load(), e.idPrompts.Load())
	}
	if n := s.FormNote(); !strings.Contains(n, "prompts sent as text") || !strings.Contains(n, "prompt must be a string") {
		t.Errorf("FormNote = %q, want the server's refusal", n)
	}
	if server, text, miscounted := s.IDSources(); server != 0 || text != 4 || miscounted != 0 {
		t.Errorf("ids from the server %d, the text %d, %d miscounted; want 0, 4, 0", server, text, miscounted)
	}
}

// With a chat benchmark, text goes to /v1/chat/completions as the user
// message; ids go to /v1/completions (the template is in them).
func TestChatBenchmarkSendsTextAsAUserMessage(t *testing.T) {
	e := startEngine(t, &engine{kind: "ollama"})
	s, rec := runSamples(t, Config{Endpoints: []string{e.url()}, ProbeIDs: []int32{1}, Chat: true}, 4)
	checkReversed(t, rec, 4)
	if e.chats.Load() != 4 || !strings.Contains(s.FormNote(), "user message to /v1/chat/completions") {
		t.Errorf("%d chat requests, note %q; want 4", e.chats.Load(), s.FormNote())
	}
	v := startEngine(t, &engine{kind: "vllm"})
	_, rec = runSamples(t, Config{Endpoints: []string{v.url()}, ProbeIDs: []int32{1}, Chat: true}, 4)
	checkReversed(t, rec, 4)
	if v.chats.Load() != 0 || v.idPrompts.Load() != 5 {
		t.Errorf("vLLM: %d chat requests, %d id prompts; want ids over /v1/completions", v.chats.Load(), v.idPrompts.Load())
	}
	// vLLM's chat stream carries token_ids too, when text is forced.
	_, rec = runSamples(t, Config{Endpoints: []string{v.url()}, Form: FormText, Chat: true}, 4)
	checkReversed(t, rec, 4)
}

// SGLang's /generate takes input_ids; its cumulative chunks (the default)
// and its increments (--incremental-streaming-output) give the same ids.
func TestSGLangCumulativeAndIncrementalChunks(t *testing.T) {
	for _, inc := range []bool{false, true} {
		e := startEngine(t, &engine{kind: "sglang", sglangIncremental: inc})
		s, rec := runSamples(t, Config{Endpoints: []string{e.url()}, API: SGLang, Vocab: 100}, 4)
		checkReversed(t, rec, 4)
		if e.idPrompts.Load() != 4 || s.Form() != FormIDs {
			t.Errorf("incremental %v: %d input_ids prompts, form %v", inc, e.idPrompts.Load(), s.Form())
		}
		if server, _, _ := s.IDSources(); server != 4 {
			t.Errorf("incremental %v: %d responses with the server's ids, want 4", inc, server)
		}
		if n := s.Name(); !strings.Contains(n, "SGLang") || !strings.Contains(n, "org/m") {
			t.Errorf("Name = %q", n)
		}
	}
	// --prompt-form text sends "text".
	e := startEngine(t, &engine{kind: "sglang"})
	_, rec := runSamples(t, Config{Endpoints: []string{e.url()}, API: SGLang, Form: FormText}, 4)
	checkReversed(t, rec, 4)
	if e.textPrompts.Load() != 4 {
		t.Errorf("%d text prompts to /generate, want 4", e.textPrompts.Load())
	}
}

// A server returning ids outside the benchmark's vocabulary runs another
// model: the probe refuses it at start, and a stream's ids fail the
// sample, naming the id and the vocabulary.
func TestIDsOutsideTheVocabularyAreRefused(t *testing.T) {
	e := startEngine(t, &engine{kind: "vllm", wrongIDs: 128009})
	s, err := New(Config{Endpoints: []string{e.url()}, Model: "m", MaxTokens: 3, Prompt: testPrompt, Encode: wIDs, ProbeIDs: []int32{1}, Vocab: 32000})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "token id 128009, outside the benchmark's vocabulary of 32000") {
		t.Errorf("Check: %v", err)
	}
	for _, cfg := range []Config{
		{Endpoints: []string{e.url()}, Form: FormIDs, Vocab: 32000},
		{Endpoints: []string{startEngine(t, &engine{kind: "sglang", wrongIDs: -3}).url()}, API: SGLang, Vocab: 32000},
	} {
		_, rec := runSamples(t, cfg, 1)
		if err := rec.done[100].Err; err == nil || !strings.Contains(err.Error(), "outside the benchmark's vocabulary of 32000") {
			t.Errorf("%v: %v", cfg.API, err)
		}
	}
}

// Two endpoints, one of which answers slowly: the fast one takes more of
// the requests (fewest in flight, not turns); each one's figures are kept.
func TestEndpointsShareByFewestInFlight(t *testing.T) {
	fast := startEngine(t, &engine{kind: "vllm"})
	slow := startEngine(t, &engine{kind: "vllm", delay: 300 * time.Millisecond})
	s, rec := runSamples(t, Config{Endpoints: []string{slow.url(), fast.url()}, Form: FormIDs, MaxInFlight: 2}, 12)
	checkReversed(t, rec, 12)
	st := s.EndpointStats()
	if len(st) != 2 || st[0].Endpoint != slow.url() || st[1].Endpoint != fast.url() {
		t.Fatalf("stats %+v", st)
	}
	if st[0].Requests+st[1].Requests != 12 || st[0].Requests >= st[1].Requests || st[0].Failed+st[1].Failed != 0 {
		t.Errorf("slow endpoint took %d, fast %d (failed %d, %d); want most on the fast one", st[0].Requests, st[1].Requests, st[0].Failed, st[1].Failed)
	}
	if st[1].Latency.Count != st[1].Requests || st[1].TTFT.Count != st[1].Requests || st[0].Latency.P50 < (300*time.Millisecond).Nanoseconds() {
		t.Errorf("latencies %+v", st)
	}
	s.ResetStats()
	if st := s.EndpointStats(); st[0].Requests+st[1].Requests != 0 || st[0].Latency.Count != 0 {
		t.Errorf("after ResetStats: %+v", st)
	}
}

// With equal endpoints, requests alternate: ties go in turn.
func TestEndpointsTakeTurnsWhenEqual(t *testing.T) {
	a, b := startEngine(t, &engine{kind: "vllm"}), startEngine(t, &engine{kind: "vllm"})
	s, rec := runSamples(t, Config{Endpoints: []string{a.url(), b.url()}, Form: FormIDs, MaxInFlight: 1}, 10)
	checkReversed(t, rec, 10)
	if st := s.EndpointStats(); st[0].Requests != 5 || st[1].Requests != 5 {
		t.Errorf("one request at a time over two endpoints: %d and %d, want 5 and 5", st[0].Requests, st[1].Requests)
	}
}

// A dead endpoint fails its samples as data; the other completes its
// own.
func TestDeadEndpointFailsItsSamplesAsData(t *testing.T) {
	live := startEngine(t, &engine{kind: "vllm"})
	dead := startEngine(t, &engine{kind: "vllm"})
	s, err := New(Config{Endpoints: []string{live.url(), dead.url()}, Model: "m", MaxTokens: 3, Prompt: testPrompt, Encode: wIDs, Form: FormIDs, MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dead.srv.Close()
	rec := newRecorder(6)
	var samples []loadgen.Sample
	for i := range 6 {
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(100 + i), Index: loadgen.SampleIndex(i % 4)})
	}
	s.IssueQuery(context.Background(), samples, rec)
	rec.wait(t)
	var ok, failed int
	for _, r := range rec.done {
		if r.Err == nil {
			ok++
		} else if strings.Contains(r.Err.Error(), dead.url()) {
			failed++
		}
	}
	st := s.EndpointStats()
	if ok != 3 || failed != 3 || st[0].Failed != 0 || st[1].Failed != 3 || st[1].Requests != 3 {
		t.Errorf("%d completed, %d failed naming the dead endpoint; stats %+v", ok, failed, st)
	}
}

// FormAuto over a mix of engines sends text to all when one refuses ids,
// and says which.
func TestProbeFallsBackToTextForAll(t *testing.T) {
	v, o := startEngine(t, &engine{kind: "vllm"}), startEngine(t, &engine{kind: "ollama"})
	s, rec := runSamples(t, Config{Endpoints: []string{v.url(), o.url()}, ProbeIDs: []int32{1}}, 4)
	checkReversed(t, rec, 4)
	if s.Form() != FormText || v.idPrompts.Load() != 1 || v.textPrompts.Load()+o.textPrompts.Load() != 4 {
		t.Errorf("form %v, vLLM %d id prompts (the probe) and %d text, ollama %d text", s.Form(), v.idPrompts.Load(), v.textPrompts.Load(), o.textPrompts.Load())
	}
	if n := s.FormNote(); !strings.Contains(n, o.url()) || strings.Contains(n, v.url()) {
		t.Errorf("FormNote %q should name the refusing endpoint only", n)
	}
}

// Streams are read to the end of the body after [DONE], so that
// sequential requests reuse one connection.
func TestSequentialRequestsReuseOneConnection(t *testing.T) {
	for _, kind := range []string{"vllm", "sglang"} {
		e := startEngine(t, &engine{kind: kind})
		api := Completions
		if kind == "sglang" {
			api = SGLang
		}
		_, rec := runSamples(t, Config{Endpoints: []string{e.url()}, API: api, Form: FormIDs, MaxInFlight: 1}, 8)
		checkReversed(t, rec, 8)
		if n := e.conns.Load(); n != 1 {
			t.Errorf("%s: 8 sequential requests opened %d connections, want 1", kind, n)
		}
	}
}

// A text-only server whose usage count differs from the tokenizer's count
// of its text is counted, so the log can say TPOT is over the tokenizer's
// count.
func TestTokenizerCountBesideTheServersUsage(t *testing.T) {
	hs := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"w1 w2 \",\"index\":0}]}\n\n")
		io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
	})
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "m", MaxTokens: 8, Prompt: testPrompt, Encode: wIDs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := newRecorder(1)
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 1}}, rec)
	rec.wait(t)
	if _, text, miscounted := s.IDSources(); rec.done[1].Err != nil || text != 1 || miscounted != 1 {
		t.Errorf("%v: %d from text, %d miscounted; want 1, 1", rec.done[1].Err, text, miscounted)
	}
}

// Hostile SGLang and vLLM streams end in clear errors, bounded.
func TestHostileEngineStreams(t *testing.T) {
	for _, c := range []struct {
		name string
		api  API
		body string
		want string
	}{
		{"sglang ids that fit no count", SGLang, `{"text":"","output_ids":[1,2,3],"meta_info":{"completion_tokens":7}}`, "neither the response so far nor its increment"},
		{"sglang without meta_info", SGLang, `{"text":"a","output_ids":[1]}`, "without meta_info"},
		{"sglang more ids than max_tokens", SGLang, `{"output_ids":[1,2,3,4,5,6,7,8,9],"meta_info":{"completion_tokens":9}}`, "more than max_tokens 8 token ids"},
		{"sglang an id past int32", SGLang, `{"output_ids":[4294967296],"meta_info":{"completion_tokens":1}}`, "not a /generate chunk"},
		{"sglang error event", SGLang, `{"error":{"message":"out of memory"}}`, "server error mid-stream: out of memory"},
		{"vllm's older error object", Completions, `{"object":"error","message":"engine dead","type":"InternalServerError"}`, "server error mid-stream: engine dead"},
		{"logprobs token id not a number", Completions, `{"choices":[{"text":"a","logprobs":{"tokens":["token_id:x1"]}}]}`, `the logprobs token "token_id:x1" is not token_id:N`},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", c.body)
			})
			s, err := New(Config{Endpoints: []string{hs.URL}, API: c.api, Model: "m", MaxTokens: 8, Prompt: testPrompt, Encode: wIDs})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			rec := newRecorder(1)
			s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 1}}, rec)
			rec.wait(t)
			if err := rec.done[1].Err; err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		})
	}
}

// The request bodies are what the engines read: vLLM's ids prompt with
// return_token_ids and usage, the chat message, SGLang's input_ids and
// sampling_params; text is escaped.
func TestRequestBodies(t *testing.T) {
	p := Prompt{IDs: []int32{1, -2, 30000}, Text: "say \"hi\"\n"}
	for _, c := range []struct {
		got  []byte
		want string
	}{
		{completionBody("m\"x", p, true, 8), `{"model":"m\"x","prompt":[1,-2,30000],"max_tokens":8,"temperature":0,"top_p":1,"stream":true,"stream_options":{"include_usage":true},"return_token_ids":true}`},
		{completionBody("m", p, false, 8), `{"model":"m","prompt":"say \"hi\"\n","max_tokens":8,"temperature":0,"top_p":1,"stream":true,"stream_options":{"include_usage":true}}`},
		{chatBody("m", p, 8), `{"model":"m","messages":[{"role":"user","content":"say \"hi\"\n"}],"max_tokens":8,"temperature":0,"top_p":1,"stream":true,"stream_options":{"include_usage":true}}`},
		{sglangBody(p, true, 8), `{"input_ids":[1,-2,30000],"sampling_params":{"max_new_tokens":8,"temperature":0,"top_p":1},"stream":true}`},
		{sglangBody(p, false, 8), `{"text":"say \"hi\"\n","sampling_params":{"max_new_tokens":8,"temperature":0,"top_p":1},"stream":true}`},
	} {
		if string(c.got) != c.want {
			t.Errorf("body\n%s\nwant\n%s", c.got, c.want)
		}
		if !json.Valid(c.got) {
			t.Errorf("not JSON: %s", c.got)
		}
	}
}

// A server that goes on after [DONE] (more bytes, or holding the
// connection open) costs the completed sample nothing and a worker at
// most drainWait or MaxLine bytes: the next samples are sent.
func TestStreamGoingOnAfterDoneHoldsNoWorker(t *testing.T) {
	for name, after := range map[string]func(w http.ResponseWriter, r *http.Request){
		"endless bytes": func(w http.ResponseWriter, r *http.Request) { endless(w, r, "data: {\"choices\":[]}\n\n") },
		"held open":     func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
	} {
		hs := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "data: {\"choices\":[{\"text\":\"w1 \",\"index\":0}]}\n\ndata: [DONE]\n\n")
			w.(http.Flusher).Flush()
			after(w, r)
		})
		s, err := New(Config{Endpoints: []string{hs.URL}, Model: "m", MaxTokens: 8, MaxInFlight: 1, Prompt: testPrompt, Encode: wIDs})
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder(3)
		s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 0}, {ID: 1}, {ID: 2}}, rec)
		rec.wait(t)
		for id, r := range rec.done {
			if r.Err != nil || !slices.Equal(decodeIDs(r.Data), []int32{1}) {
				t.Errorf("%s: sample %d: %v %v", name, id, r.Err, decodeIDs(r.Data))
			}
		}
		s.Close()
	}
}
