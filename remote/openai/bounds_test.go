package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/loadgen"
)

// streamServer answers /v1/models and streams what body writes for every
// completion request.
func streamServer(t *testing.T, body func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		body(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs
}

// one issues one sample to a SUT with max_tokens 8 and returns its
// response.
func one(t *testing.T, hs *httptest.Server, key string) loadgen.Response {
	t.Helper()
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "m", APIKey: key, MaxTokens: 8, Timeout: time.Minute,
		Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: "p"}, nil }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := newRecorder(1)
	s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 0}}, rec)
	rec.wait(t)
	return rec.done[0]
}

// endless writes unit until the client goes away.
func endless(w http.ResponseWriter, r *http.Request, unit string) {
	for r.Context().Err() == nil {
		if _, err := io.WriteString(w, unit); err != nil {
			return
		}
	}
}

// Streams no completion could be are cut off at their bound with an
// error saying which, never read whole.
func TestStreamBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		body func(w http.ResponseWriter, r *http.Request)
		want string
	}{
		{"a 100 MB token", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `data: {"choices":[{"text":"`)
			endless(w, r, strings.Repeat("a", 1<<20))
		}, fmt.Sprintf("a streamed line runs past %d bytes", MaxLine)},
		{"a line without end", func(w http.ResponseWriter, r *http.Request) {
			endless(w, r, strings.Repeat(": keepalive ", 1000))
		}, "a streamed line runs past"},
		{"endless small tokens", func(w http.ResponseWriter, r *http.Request) {
			endless(w, r, "data: {\"choices\":[{\"text\":\" w\"}]}\n\n")
		}, "the stream runs past 4128 lines without [DONE]"},
		{"endless keep-alive comments", func(w http.ResponseWriter, r *http.Request) {
			endless(w, r, ": ping\n")
		}, "the stream runs past 4128 lines"},
		{"tokens of 200 kB", func(w http.ResponseWriter, r *http.Request) {
			for range 20 {
				fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"%s\"}]}\n\n", strings.Repeat("b", 200<<10))
			}
			io.WriteString(w, "data: [DONE]\n\n")
		}, "the stream's text runs past 6144 bytes, more than max_tokens 8 tokens of at most 256 bytes each"},
		{"more ids than max_tokens", func(w http.ResponseWriter, r *http.Request) {
			for range 3 {
				io.WriteString(w, "data: {\"choices\":[{\"text\":\"x\",\"token_ids\":[1,2,3,4]}]}\n\n")
			}
			io.WriteString(w, "data: [DONE]\n\n")
		}, "more than max_tokens 8 token ids"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := one(t, streamServer(t, c.body), "")
			if r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
				t.Errorf("%v, want %q", r.Err, c.want)
			}
		})
	}
}

// A server that echoes the API key (in a 401 body, an error event or a
// malformed event) does not get it into the error, which goes to stderr
// and the detail log.
func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-test-0123456789"
	for name, body := range map[string]func(w http.ResponseWriter, r *http.Request){
		"401": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":"invalid key %s"}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		},
		"error event": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "data: {\"error\":{\"message\":\"quota of %s spent\"}}\n\n", key)
		},
		"malformed event": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "data: {key %s}\n\n", key)
		},
	} {
		r := one(t, streamServer(t, body), key)
		if r.Err == nil || strings.Contains(r.Err.Error(), key) || !strings.Contains(r.Err.Error(), "xxxxx") {
			t.Errorf("%s: %v", name, r.Err)
		}
	}
}

// Close ends the requests in flight at once, even against a server that
// holds its streams open, and their samples fail with ErrClosed.
func TestCloseCancelsRequestsInFlight(t *testing.T) {
	started := make(chan struct{}, 4)
	hs := streamServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, ": open\n")
		w.(http.Flusher).Flush()
		started <- struct{}{}
		<-r.Context().Done()
	})
	s, err := New(Config{Endpoints: []string{hs.URL}, Model: "m", MaxTokens: 8, MaxInFlight: 4, Timeout: time.Hour,
		Prompt: func(loadgen.SampleIndex) (Prompt, error) { return Prompt{Text: "p"}, nil }, Encode: words})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(6)
	var samples []loadgen.Sample
	for i := range 6 {
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(i)})
	}
	s.IssueQuery(context.Background(), samples, rec)
	for range 4 {
		<-started
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited on streams held open")
	}
	rec.wait(t)
	for id, r := range rec.done {
		if !errors.Is(r.Err, ErrClosed) {
			t.Errorf("sample %d: %v, want ErrClosed", id, r.Err)
		}
	}
}

// TestStreamBoundsJustInside: max_tokens 8 takes exactly 8 server ids,
// 6144 bytes of text and 4128 lines; one more of each is refused (the
// messages are TestStreamBounds's).
func TestStreamBoundsJustInside(t *testing.T) {
	chunk := func(w io.Writer, text string) {
		fmt.Fprintf(w, "data: {\"choices\":[{\"text\":%q}]}\n", text)
	}
	for _, c := range []struct {
		name   string
		body   func(w http.ResponseWriter, r *http.Request)
		tokens int    // when accepted
		want   string // when refused
	}{
		{"8 ids", func(w http.ResponseWriter, r *http.Request) {
			for range 2 {
				io.WriteString(w, "data: {\"choices\":[{\"text\":\"x\",\"token_ids\":[1,2,3,4]}]}\n")
			}
			io.WriteString(w, "data: [DONE]\n")
		}, 8, ""},
		{"9 ids", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "data: {\"choices\":[{\"text\":\"x\",\"token_ids\":[1,2,3,4,5,6,7,8]}]}\n")
			io.WriteString(w, "data: {\"choices\":[{\"text\":\"x\",\"token_ids\":[9]}]}\n")
			io.WriteString(w, "data: [DONE]\n")
		}, 0, "more than max_tokens 8 token ids"},
		{"6144 bytes", func(w http.ResponseWriter, r *http.Request) {
			chunk(w, strings.Repeat("b", 6144))
			io.WriteString(w, "data: [DONE]\n")
		}, 1, ""},
		{"6145 bytes", func(w http.ResponseWriter, r *http.Request) {
			chunk(w, strings.Repeat("b", 6144))
			chunk(w, "c")
			io.WriteString(w, "data: [DONE]\n")
		}, 0, "the stream's text runs past 6144 bytes"},
		{"4128 lines", func(w http.ResponseWriter, r *http.Request) {
			chunk(w, "w")
			io.WriteString(w, strings.Repeat(": ping\n", 4126))
			io.WriteString(w, "data: [DONE]\n")
		}, 1, ""},
		{"4129 lines", func(w http.ResponseWriter, r *http.Request) {
			chunk(w, "w")
			io.WriteString(w, strings.Repeat(": ping\n", 4127))
			io.WriteString(w, "data: [DONE]\n")
		}, 0, "the stream runs past 4128 lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := one(t, streamServer(t, c.body), "")
			switch {
			case c.want == "" && (r.Err != nil || r.Tokens != c.tokens):
				t.Errorf("%v, %d tokens; want %d tokens", r.Err, r.Tokens, c.tokens)
			case c.want != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), c.want)):
				t.Errorf("%v, want %q", r.Err, c.want)
			}
		})
	}
}
