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
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// reverser generates the prompt's words in reverse order, one word per
// token (" word"), up to maxTokens; the prompt "fail ..." fails after one
// token.
type reverser struct{}

func (reverser) Generate(ctx context.Context, prompt string, maxTokens int, emit func(string)) (Usage, error) {
	ws := strings.Fields(prompt)
	u := Usage{PromptTokens: len(ws), FinishReason: "stop"}
	for i := len(ws) - 1; i >= 0; i-- {
		if u.CompletionTokens == maxTokens {
			u.FinishReason = "length"
			break
		}
		emit(" " + ws[i])
		u.CompletionTokens++
		if ws[0] == "fail" {
			return Usage{}, errors.New("the decoder failed")
		}
	}
	return u, nil
}

func TestServerRoundTripWithClient(t *testing.T) {
	hs := httptest.NewServer(NewHandler("rev", reverser{}))
	defer hs.Close()
	prompts := []string{"a bb ccc", "dddd e", "one two three four five six seven", "fail now"}
	s, err := New(Config{Endpoint: hs.URL, Model: "rev", MaxTokens: 5, MaxInFlight: 2,
		Prompt: func(i loadgen.SampleIndex) (string, error) { return prompts[i], nil }, Encode: words,
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
		{`{"model":"rev","prompt":[1,2,3]}`, 400, "prompt must be a string"},
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
	cfg := Config{Endpoint: hs.URL, Model: "rev", MaxTokens: 1, Prompt: func(loadgen.SampleIndex) (string, error) { return "", nil }, Encode: words}
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
	cfg.Endpoint = nf.URL
	s2, _ := New(cfg)
	defer s2.Close()
	if err := s2.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("Check against a server without /v1/models: %v", err)
	}
}
