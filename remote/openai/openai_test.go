package openai

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
)

// words encodes text as one id per space-separated word: id = len(word).
func words(text string) []int32 {
	var ids []int32
	for _, w := range strings.Fields(text) {
		ids = append(ids, int32(len(w)))
	}
	return ids
}

// recorder is a TokenCompleter that keeps what it is given.
type recorder struct {
	mu    sync.Mutex
	first map[loadgen.ResponseID][]byte
	order []string
	done  map[loadgen.ResponseID]loadgen.Response
	all   chan struct{}
	want  int
}

func newRecorder(n int) *recorder {
	return &recorder{first: map[loadgen.ResponseID][]byte{}, done: map[loadgen.ResponseID]loadgen.Response{}, all: make(chan struct{}), want: n}
}

func (r *recorder) FirstToken(id loadgen.ResponseID, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.first[id] = append([]byte(nil), data...)
	r.order = append(r.order, fmt.Sprint("first ", id))
}

func (r *recorder) Complete(rs ...loadgen.Response) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range rs {
		x.Data = append([]byte(nil), x.Data...)
		r.done[x.ID] = x
		r.order = append(r.order, fmt.Sprint("done ", x.ID))
	}
	if len(r.done) == r.want {
		close(r.all)
	}
}

func (r *recorder) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.all:
	case <-time.After(10 * time.Second):
		t.Fatal("not every sample completed")
	}
}

// fakeServer streams the words of "prompt reversed" one per event.
func fakeServer(t *testing.T, mode func(prompt string) string) *httptest.Server {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"tiny-llama"}]}`)
			return
		}
		var req struct {
			Model       string  `json:"model"`
			Prompt      string  `json:"prompt"`
			MaxTokens   int     `json:"max_tokens"`
			Temperature float64 `json:"temperature"`
			Stream      bool    `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/completions" || !req.Stream || req.Temperature != 0 || req.MaxTokens != 5 || req.Model != "tiny-llama" {
			http.Error(w, fmt.Sprintf("bad request %+v %v", req, err), 400)
			return
		}
		m := mode(req.Prompt)
		if m == "500" {
			http.Error(w, "overloaded", 500)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		ws := strings.Fields(req.Prompt)
		for i := len(ws) - 1; i >= 0; i-- {
			if m == "garbage" {
				io.WriteString(w, "data: {not json\n\n")
				return
			}
			fmt.Fprintf(w, "data: {\"choices\":[{\"text\":%q,\"index\":0,\"finish_reason\":null}]}\n\n", ws[i]+" ")
			f.Flush()
			if m == "cut" {
				return
			}
			if m == "stall" {
				<-r.Context().Done()
				return
			}
		}
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(hs.Close)
	return hs
}

func TestStreamsFirstTokenThenCompletion(t *testing.T) {
	prompts := []string{"a bb ccc", "dddd e", "ff"}
	hs := fakeServer(t, func(string) string { return "" })
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "tiny-llama", MaxTokens: 5, MaxInFlight: 2,
		Prompt: func(i loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: prompts[i]}, nil }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.Name(); !strings.Contains(n, "tiny-llama") {
		t.Errorf("Name = %q", n)
	}
	rec := newRecorder(3)
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 10, Index: 0}, {ID: 11, Index: 1}, {ID: 12, Index: 2}}, rec)
	rec.wait(t)
	for i, p := range prompts {
		id := loadgen.ResponseID(10 + i)
		r := rec.done[id]
		ws := strings.Fields(p)
		if r.Err != nil || r.Tokens != len(ws) || len(r.Data) != 4*len(ws) {
			t.Fatalf("sample %d: %+v", i, r)
		}
		for k := range ws {
			if got := int32(binary.LittleEndian.Uint32(r.Data[4*k:])); got != int32(len(ws[len(ws)-1-k])) {
				t.Errorf("sample %d token %d = %d", i, k, got)
			}
		}
		if f := rec.first[id]; len(f) != 4 || int32(binary.LittleEndian.Uint32(f)) != int32(len(ws[len(ws)-1])) {
			t.Errorf("sample %d first token %v", i, f)
		}
	}
	// Each sample's first token came before its completion.
	pos := map[string]int{}
	for i, e := range rec.order {
		pos[e] = i
	}
	for i := range 3 {
		if pos[fmt.Sprint("first ", 10+i)] > pos[fmt.Sprint("done ", 10+i)] {
			t.Errorf("sample %d completed before its first token: %v", i, rec.order)
		}
	}
}

func TestServerFaultsFailSamplesAsData(t *testing.T) {
	hs := fakeServer(t, func(p string) string { return strings.Fields(p)[0] })
	s, err := New(Config{Endpoints: []string{strings.TrimPrefix(hs.URL, "http://")}, Model: "tiny-llama", MaxTokens: 5, Timeout: 300 * time.Millisecond,
		Prompt: func(i loadgen.SampleIndex) (Prompt, error) {
			return Prompt{Text: []string{"500 x", "garbage x", "cut x y", "stall x", "ok x y"}[i]}, nil
		}, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := newRecorder(5)
	var samples []loadgen.Sample
	for i := range 5 {
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(i), Index: loadgen.SampleIndex(i)})
	}
	start := time.Now()
	s.IssueQuery(context.Background(), samples, rec)
	rec.wait(t)
	for i, want := range []string{"HTTP 500", "not a completion chunk", "without [DONE]", "no complete answer within the request timeout of 300ms", ""} {
		err := rec.done[loadgen.ResponseID(i)].Err
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("sample %d: err %v, want %q", i, err, want)
		}
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("faults took %v", el)
	}
}

func TestCloseFailsQueuedSamples(t *testing.T) {
	hs := fakeServer(t, func(string) string { return "stall" })
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "tiny-llama", MaxTokens: 5, MaxInFlight: 1,
		Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: "x"}, nil }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(3)
	ctx, cancel := context.WithCancel(context.Background())
	s.IssueQuery(ctx, []loadgen.Sample{{ID: 0}, {ID: 1}, {ID: 2}}, rec)
	time.Sleep(50 * time.Millisecond)
	cancel() // ends the stalled request in flight
	s.Close()
	rec.wait(t)
	for id, r := range rec.done {
		if r.Err == nil {
			t.Errorf("sample %d succeeded against a stalled server", id)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	ok := Config{Endpoints: []string{"127.0.0.1:1"}, Model: "m", MaxTokens: 1, Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{}, nil }, Encode: words}
	for name, mut := range map[string]func(*Config){
		"no endpoint":         func(c *Config) { c.Endpoints = nil },
		"scheme":              func(c *Config) { c.Endpoints = []string{"ftp://x"} },
		"one endpoint twice":  func(c *Config) { c.Endpoints = []string{"127.0.0.1:1", "http://127.0.0.1:1/v1"} },
		"a bad second one":    func(c *Config) { c.Endpoints = []string{"127.0.0.1:1", "a:1,b:2"} },
		"max tokens":          func(c *Config) { c.MaxTokens = 0 },
		"encode":              func(c *Config) { c.Encode = nil },
		"sglang chat as text": func(c *Config) { c.API, c.Chat, c.Form = SGLang, true, FormText },
		"unknown form":        func(c *Config) { c.Form = 7 },
	} {
		c := ok
		mut(&c)
		if _, err := New(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// With Chunk, each streamed chunk maps to its own ids (the server's tokens)
// and the whole text is never re-encoded, so the first token reported is
// the response's first id.
func TestChunkIDsPerStreamedToken(t *testing.T) {
	hs := fakeServer(t, func(string) string { return "" })
	var encoded int
	var mu sync.Mutex
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "tiny-llama", MaxTokens: 5,
		Prompt: func(i loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: "a bb ccc"}, nil },
		Encode: func(string) []int32 { mu.Lock(); encoded++; mu.Unlock(); return []int32{99} },
		Chunk:  func(text string) []int32 { return []int32{int32(10 * len(text)), 1} }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := newRecorder(1)
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 7, Index: 0}}, rec)
	rec.wait(t)
	r := rec.done[7]
	want := []int32{40, 1, 30, 1, 20, 1} // "ccc ", "bb ", "a "
	if r.Err != nil || r.Tokens != len(want) || len(r.Data) != 4*len(want) {
		t.Fatalf("response %+v", r)
	}
	for k, w := range want {
		if got := int32(binary.LittleEndian.Uint32(r.Data[4*k:])); got != w {
			t.Errorf("id %d = %d, want %d", k, got, w)
		}
	}
	if f := rec.first[7]; len(f) != 4 || binary.LittleEndian.Uint32(f) != 40 {
		t.Errorf("first token %v, want 40", f)
	}
	if encoded != 0 {
		t.Errorf("Encode called %d times with Chunk set", encoded)
	}
}

// idServer streams "x " three times with the given token_ids per chunk
// (nil: none) and [DONE].
func idServer(t *testing.T, ids [][]int32) *httptest.Server {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"tiny-llama"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range ids {
			b, _ := json.Marshal(c)
			if c == nil {
				fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"x \",\"index\":0,\"finish_reason\":null}]}\n\n")
				continue
			}
			fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"x \",\"token_ids\":%s,\"index\":0,\"finish_reason\":null}]}\n\n", b)
		}
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(hs.Close)
	return hs
}

// TestServerTokenIDsWinOverTheTokenizer: where the stream carries
// token_ids, the response's ids and its first token are the server's, not
// the tokenizer's over the text; a stream that gives them for some chunks
// only fails the sample.
func TestServerTokenIDsWinOverTheTokenizer(t *testing.T) {
	run := func(ids [][]int32) (loadgen.Response, []byte, *SUT) {
		t.Helper()
		hs := idServer(t, ids)
		s, err := New(Config{Endpoints: []string{hs.URL}, Model: "tiny-llama", MaxTokens: 5,
			Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: "p"}, nil },
			Encode: func(string) []int32 { return []int32{99} },
			Chunk:  func(string) []int32 { return []int32{77} }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		rec := newRecorder(1)
		s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 3}}, rec)
		rec.wait(t)
		return rec.done[3], rec.first[3], s
	}
	r, first, s := run([][]int32{{5}, {6, 7}, {8}})
	want := []int32{5, 6, 7, 8}
	if r.Err != nil || r.Tokens != len(want) || len(r.Data) != 4*len(want) {
		t.Fatalf("response %+v", r)
	}
	for k, w := range want {
		if got := int32(binary.LittleEndian.Uint32(r.Data[4*k:])); got != w {
			t.Errorf("id %d = %d, want the server's %d", k, got, w)
		}
	}
	if len(first) != 4 || binary.LittleEndian.Uint32(first) != 5 {
		t.Errorf("first token %v, want the server's 5", first)
	}
	if server, text, _ := s.IDSources(); server != 1 || text != 0 {
		t.Errorf("IDSources = %d server, %d text after a response with the server's ids", server, text)
	}
	r, _, s = run([][]int32{nil, nil})
	if server, text, _ := s.IDSources(); r.Err != nil || r.Tokens != 2 || int32(binary.LittleEndian.Uint32(r.Data)) != 77 || server != 0 || text != 1 {
		t.Errorf("without token_ids: %+v (ids from the server %d, the text %d); want the chunks' ids 77 77", r, server, text)
	}
	if r, _, _ := run([][]int32{{5}, nil}); r.Err == nil || !strings.Contains(r.Err.Error(), "token_ids with some chunks") {
		t.Errorf("a stream mixing chunks with and without token_ids: %v", r.Err)
	}
}

// gatedRecorder is a recorder that also signals its first FirstToken.
type gatedRecorder struct {
	*recorder
	once  sync.Once
	first chan struct{}
}

func (g *gatedRecorder) FirstToken(id loadgen.ResponseID, data []byte) {
	g.recorder.FirstToken(id, data)
	g.once.Do(func() { close(g.first) })
}

// TestFirstTokenIsReportedWhileTheStreamIsOpen: the server sends one token
// and then holds the stream until the test has seen FirstToken, so a client
// that reported the first token only at the end of the stream never gets
// there (the test's minute-long guard fails it; no timing is asserted).
// An empty completion is an error, not a zero-token success.
func TestFirstTokenIsReportedWhileTheStreamIsOpen(t *testing.T) {
	gate := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"tiny-llama"}]}`)
			return
		}
		var req struct {
			Prompt string `json:"prompt"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		if req.Prompt == "empty" {
			io.WriteString(w, "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"abc \",\"index\":0,\"finish_reason\":null}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"de\",\"index\":0,\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer hs.Close()
	defer close(gate)
	prompts := []string{"gated", "empty"}
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "tiny-llama", MaxTokens: 5, MaxInFlight: 2,
		Prompt: func(i loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: prompts[i]}, nil }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := &gatedRecorder{recorder: newRecorder(1), first: make(chan struct{})}
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 1, Index: 0}}, rec)
	select {
	case <-rec.first:
	case <-time.After(time.Minute):
		t.Fatal("no first token while the server held the stream open after it")
	}
	rec.mu.Lock()
	f, done := rec.recorder.first[1], len(rec.done)
	rec.mu.Unlock()
	if len(f) != 4 || binary.LittleEndian.Uint32(f) != 3 || done != 0 {
		t.Fatalf("first token %v (want id 3, \"abc\"), %d completions before the stream ended", f, done)
	}
	gate <- struct{}{}
	rec.wait(t)
	if r := rec.done[1]; r.Err != nil || r.Tokens != 2 {
		t.Fatalf("completion %+v, want 2 tokens", r)
	}
	empty := newRecorder(1)
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 2, Index: 1}}, empty)
	empty.wait(t)
	if r := empty.done[2]; r.Err == nil || !strings.Contains(r.Err.Error(), "empty completion") || len(empty.first) != 0 {
		t.Fatalf("empty completion: %+v, first tokens %v", r, empty.first)
	}
}

// TestSamplesOfOneQueryRunAtOnce: two samples issued together are both in
// flight at once (MaxInFlight 2): the server holds each stream until it
// has seen both requests, so a client that woke one worker for the query
// would never get there (the guard fails it; no timing is asserted).
func TestSamplesOfOneQueryRunAtOnce(t *testing.T) {
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"tiny-llama"}]}`)
			return
		}
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"ab\",\"index\":0,\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer hs.Close()
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "tiny-llama", MaxTokens: 5, MaxInFlight: 2,
		Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: "p"}, nil }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := newRecorder(2)
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 1}, {ID: 2}}, rec)
	select {
	case <-both:
	case <-time.After(time.Minute):
		t.Fatal("the two samples of one query were never in flight together")
	}
	rec.wait(t)
	for _, id := range []loadgen.ResponseID{1, 2} {
		if r := rec.done[id]; r.Err != nil || r.Tokens != 1 {
			t.Errorf("sample %d: %+v", id, r)
		}
	}
}

// TestPromptErrorFailsTheSample: a sample whose prompt cannot be had fails
// with that error, and no request is sent for it.
func TestPromptErrorFailsTheSample(t *testing.T) {
	var posts int
	var mu sync.Mutex
	hs := fakeServer(t, func(string) string { mu.Lock(); posts++; mu.Unlock(); return "" })
	bad := errors.New("no such sample")
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "tiny-llama", MaxTokens: 5,
		Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{}, bad }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := newRecorder(1)
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 3}}, rec)
	rec.wait(t)
	mu.Lock()
	defer mu.Unlock()
	if r := rec.done[3]; !errors.Is(r.Err, bad) || posts != 0 {
		t.Errorf("sample %+v after %d requests; want the prompt's error and none", r, posts)
	}
}

// A line longer than MaxLine, 256 KiB, is refused with that number.
func TestMaxLineIs256KiB(t *testing.T) {
	r := one(t, streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `data: {"choices":[{"text":"`)
		io.WriteString(w, strings.Repeat("a", 300<<10))
	}), "")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "runs past 262144 bytes") {
		t.Errorf("%v, want the 262144-byte bound", r.Err)
	}
}

// TestFirstTokenOfAnIDsOnlyChunk: a first chunk that carries token_ids and
// no text is the first token, reported while the stream is still open.
func TestFirstTokenOfAnIDsOnlyChunk(t *testing.T) {
	gate := make(chan struct{})
	hs := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"\",\"token_ids\":[7]}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"\",\"token_ids\":[8]}]}\n\ndata: [DONE]\n\n")
	})
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "m", MaxTokens: 8,
		Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: "p"}, nil }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := &gatedRecorder{recorder: newRecorder(1), first: make(chan struct{})}
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 4}}, rec)
	select {
	case <-rec.first:
	case <-time.After(time.Minute):
		close(gate)
		t.Fatal("no first token while the server held the stream open after an ids-only chunk")
	}
	close(gate)
	rec.wait(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if f := rec.recorder.first[4]; len(f) != 4 || binary.LittleEndian.Uint32(f) != 7 || rec.done[4].Tokens != 2 {
		t.Errorf("first token %v, completion %+v; want id 7 and 2 tokens", f, rec.done[4])
	}
}
