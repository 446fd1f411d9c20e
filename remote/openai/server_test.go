package openai

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// reverser generates the prompt's words in reverse order, one word per
// token (" word", id its length), up to maxTokens; a prompt of ids gives
// them reversed (text " w<id>"); a chat takes the last message's words.
// The prompt "fail ..." fails after one token; an id ≥ 1000 is refused as
// a bad request.
type reverser struct{}

func (reverser) Generate(ctx context.Context, req Request, emit func(int32, string)) (Usage, error) {
	type tok struct {
		id   int32
		text string
	}
	var toks []tok
	fail := false
	switch {
	case len(req.IDs) > 0:
		for _, id := range req.IDs {
			if id >= 1000 {
				return Usage{}, fmt.Errorf("%w: id %d outside the vocabulary", ErrBadRequest, id)
			}
			toks = append([]tok{{id, fmt.Sprintf(" w%d", id)}}, toks...)
		}
	default:
		prompt := req.Prompt
		if len(req.Messages) > 0 {
			prompt = req.Messages[len(req.Messages)-1].Content
		}
		ws := strings.Fields(prompt)
		fail = len(ws) > 0 && ws[0] == "fail"
		for i := len(ws) - 1; i >= 0; i-- {
			toks = append(toks, tok{int32(len(ws[i]) + 1), " " + ws[i]})
		}
	}
	u := Usage{PromptTokens: len(toks), FinishReason: "stop"}
	for _, t := range toks {
		if u.CompletionTokens == req.MaxTokens {
			u.FinishReason = "length"
			break
		}
		emit(t.id, t.text)
		u.CompletionTokens++
		if fail {
			return Usage{}, errors.New("the decoder failed")
		}
	}
	return u, nil
}

func TestServerRoundTripWithClient(t *testing.T) {
	hs := httptest.NewServer(NewHandler("rev", reverser{}))
	defer hs.Close()
	prompts := []string{"a bb ccc", "dddd e", "one two three four five six seven", "fail now"}
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "rev", MaxTokens: 5, MaxInFlight: 2,
		Prompt: func(i loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: prompts[i]}, nil }, Encode: words,
		Chunk: func(text string) []int32 { return []int32{int32(len(text))} }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.Name(); !strings.Contains(n, "serving rev") {
		t.Errorf("Name = %q", n)
	}
	rec := newRecorder(len(prompts))
	var samples []loadgen.Sample
	for i := range prompts {
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(i), Index: loadgen.SampleIndex(i)})
	}
	s.IssueQuery(context.Background(), samples, rec)
	rec.wait(t)
	for i, p := range prompts[:3] {
		ws := strings.Fields(p)
		var want []int32
		for k := len(ws) - 1; k >= 0 && len(want) < 5; k-- {
			want = append(want, int32(len(ws[k])+1))
		}
		r := rec.done[loadgen.ResponseID(i)]
		if r.Err != nil || r.Tokens != len(want) {
			t.Fatalf("sample %d: %+v, want %v", i, r, want)
		}
		for k, w := range want {
			if got := int32(binary.LittleEndian.Uint32(r.Data[4*k:])); got != w {
				t.Errorf("sample %d id %d = %d, want %d", i, k, got, w)
			}
		}
		if f := rec.first[loadgen.ResponseID(i)]; len(f) != 4 || int32(binary.LittleEndian.Uint32(f)) != want[0] {
			t.Errorf("sample %d first token %v", i, f)
		}
	}
	if r := rec.done[3]; r.Err == nil || !strings.Contains(r.Err.Error(), "the decoder failed") {
		t.Errorf("a decoder failure mid-stream: %+v", r)
	}
}

func TestServerNonStreamingAndErrors(t *testing.T) {
	hs := httptest.NewServer(NewHandler("rev", reverser{}))
	defer hs.Close()
	post := func(body string) (int, map[string]any) {
		resp, err := http.Post(hs.URL+"/v1/completions", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	code, m := post(`{"model":"rev","prompt":"x y z","max_tokens":2,"temperature":0}`)
	ch := m["choices"].([]any)[0].(map[string]any)
	u := m["usage"].(map[string]any)
	if code != 200 || ch["text"] != " z y" || ch["finish_reason"] != "length" || u["prompt_tokens"] != 3.0 || u["completion_tokens"] != 2.0 || u["total_tokens"] != 5.0 {
		t.Errorf("non-streaming answer %d %v", code, m)
	}
	code, m = post(`{"model":"rev","prompt":["x y"]}`)
	if ch := m["choices"].([]any)[0].(map[string]any); code != 200 || ch["text"] != " y x" || ch["finish_reason"] != "stop" {
		t.Errorf("prompt as an array of one string: %d %v", code, m)
	}
	for _, tc := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"model":"other","prompt":"x"}`, 404, `model "other" is not served here`},
		{`{"model":"rev","prompt":"x","temperature":0.7}`, 400, "greedily only"},
		{`{"model":"rev","prompt":[1,2,3000]}`, 400, "id 3000 outside the vocabulary"},
		{`{"model":"rev","prompt":[1,2,3000],"stream":true}`, 400, "id 3000 outside the vocabulary"},
		{`{"model":"rev","prompt":[1,2.5]}`, 400, "prompt must be a string, token ids"},
		{`{"model":"rev","prompt":[4294967296]}`, 400, "prompt must be a string, token ids"},
		{`{"model":"rev","prompt":[]}`, 400, "prompt must be a string, token ids"},
		{`{"model":"rev","prompt":{"a":1}}`, 400, "prompt must be a string, token ids"},
		{`{"model":"rev","prompt":"x","max_tokens":0}`, 400, "max_tokens 0: want 1 to 4096"},
		{`{"model":"rev","prompt":"x","max_tokens":4097}`, 400, "max_tokens 4097: want 1 to 4096"},
		{`{"model":"rev","prompt":"x","max_tokens":2000000000}`, 400, "max_tokens 2000000000"},
		{`{"model":"rev","prompt":"` + strings.Repeat("x ", MaxRequestBody/2) + `"}`, 413, "exceed this server's limit of 1048576"},
		{`{"model":`, 400, "not a completion request"},
	} {
		code, m := post(tc.body)
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); code != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: %d %v, want %d %q", tc.body, code, m, tc.code, tc.msg)
		}
	}
	// A body of exactly the limit is read; one byte more is refused by its
	// Content-Length.
	small := `{"model":"rev","prompt":"x y"}`
	code, m = post(small + strings.Repeat(" ", MaxRequestBody-len(small)))
	if code != 200 {
		t.Errorf("a body of exactly %d bytes: %d %v", MaxRequestBody, code, m)
	}
	code, m = post(small + strings.Repeat(" ", MaxRequestBody-len(small)+1))
	if e, _ := m["error"].(map[string]any); code != 413 || !strings.Contains(fmt.Sprint(e["message"]), "the request's 1048577 bytes exceed") {
		t.Errorf("a body of %d bytes: %d %v", MaxRequestBody+1, code, m)
	}
	// A body without Content-Length that runs past the limit.
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, `{"model":"rev","prompt":"`)
		for range 2 * MaxRequestBody / 4096 {
			if _, err := pw.Write(bytes.Repeat([]byte("x"), 4096)); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/completions", pr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	pr.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a streamed 2 MiB body: %d", resp.StatusCode)
	}
	resp, err = http.Get(hs.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 1 || models.Data[0].ID != "rev" {
		t.Errorf("/v1/models: %+v", models)
	}
}

func TestCheckFailsForAnUnreachableServer(t *testing.T) {
	hs := httptest.NewServer(NewHandler("rev", reverser{}))
	cfg := Config{Endpoints: []string{hs.URL}, Model: "rev", MaxTokens: 1, Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{}, nil }, Encode: words}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(context.Background()); err != nil {
		t.Errorf("Check against a live server: %v", err)
	}
	hs.Close()
	if err := s.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "does not answer") {
		t.Errorf("Check against a closed server: %v", err)
	}
	nf := httptest.NewServer(http.NotFoundHandler())
	defer nf.Close()
	cfg.Endpoints = []string{nf.URL}
	s2, _ := New(cfg)
	defer s2.Close()
	if err := s2.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("Check against a server without /v1/models: %v", err)
	}
}

// The server takes a prompt of ids (the client's probe finds it), and
// its stream carries every generated id (token_ids), which the client
// takes over its tokenizer.
func TestServerTakesIDsAndReturnsThem(t *testing.T) {
	hs := httptest.NewServer(NewHandler("m", reverser{}))
	defer hs.Close()
	s, rec := runSamples(t, Config{Endpoints: []string{hs.URL}, ProbeIDs: []int32{1, 2}, Vocab: 1000}, 4)
	if s.Form() != FormIDs {
		t.Errorf("form %v (%s), want ids", s.Form(), s.FormNote())
	}
	// testPrompt's ids reversed, at most 3: the reverser's ids.
	checkReversed(t, rec, 4)
	if server, text, _ := s.IDSources(); server != 4 || text != 0 {
		t.Errorf("ids from the server %d, the text %d", server, text)
	}
}

// A chat benchmark's text goes to /v1/chat/completions; the server
// streams chat chunks with token_ids, and answers without streaming as a
// chat.completion.
func TestServerChatCompletions(t *testing.T) {
	hs := httptest.NewServer(NewHandler("m", reverser{}))
	defer hs.Close()
	prompts := []string{"a bb ccc", "dddd e"}
	s, rec := runSamples(t, Config{Endpoints: []string{hs.URL}, Form: FormText, Chat: true, MaxTokens: 5,
		Prompt: func(i loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: prompts[i%2]}, nil }}, 2)
	for i, want := range [][]int32{{4, 3, 2}, {2, 5}} {
		if r := rec.done[loadgen.ResponseID(100+i)]; r.Err != nil || !slices.Equal(decodeIDs(r.Data), want) {
			t.Errorf("chat sample %d: %v %v, want %v", i, r.Err, decodeIDs(r.Data), want)
		}
	}
	if !strings.Contains(s.FormNote(), "/v1/chat/completions") {
		t.Errorf("FormNote %q", s.FormNote())
	}
	post := func(body string) (int, string) {
		resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post(`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"x yy"}],"max_completion_tokens":4}`)
	var m struct {
		Object  string
		Choices []struct {
			Message      Message
			FinishReason string  `json:"finish_reason"`
			TokenIDs     []int32 `json:"token_ids"`
		}
		Usage usageJSON
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || code != 200 || m.Object != "chat.completion" || len(m.Choices) != 1 ||
		m.Choices[0].Message != (Message{Role: "assistant", Content: " yy x"}) || !slices.Equal(m.Choices[0].TokenIDs, []int32{3, 2}) ||
		m.Choices[0].FinishReason != "stop" || m.Usage.CompletionTokens != 2 {
		t.Errorf("chat answer %d %s (%v)", code, body, err)
	}
	code, body = post(`{"model":"m","messages":[{"role":"user","content":"x yy"}],"stream":true}`)
	if code != 200 || !strings.Contains(body, `"object":"chat.completion.chunk"`) || !strings.Contains(body, `"delta":{"role":"assistant","content":" yy"},"logprobs":null,"finish_reason":null,"token_ids":[3]`) ||
		!strings.Contains(body, `"delta":{"content":" x"}`) || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("chat stream %d:\n%s", code, body)
	}
	many := `{"model":"m","messages":[` + strings.Repeat(`{"role":"user","content":"x"},`, MaxMessages) + `{"role":"user","content":"x"}]}`
	for _, c := range []struct{ body, want string }{
		{`{"model":"m","messages":[]}`, "want at least one message"},
		{`{"model":"m","messages":[{"role":"tool","content":"x"}]}`, `role \"tool\": want system, user or assistant`},
		{`{"model":"m","messages":"hi"}`, "not a completion request"},
		{many, "messages: 257, at most 256"},
	} {
		if code, body := post(c.body); code != 400 || !strings.Contains(body, c.want) {
			t.Errorf("%.60s: %d %s, want 400 %q", c.body, code, body, c.want)
		}
	}
}
