// Package openai drives an OpenAI-compatible completions server (vLLM,
// TGI, SGLang, ollama, `mlperf serve`) as a loadgen SUT for the decoder
// benchmarks: every sample is one streamed /v1/completions request with
// greedy settings; the first streamed text is the sample's first token
// (TTFT), the end of the stream its completion.
//
// A response's token ids are the server's where its streamed choices carry
// them (a "token_ids" array, as vLLM adds on request); a stream that mixes
// chunks with and without them is an error. Most servers return text only
// (ollama refuses ids), and then the ids are the benchmark's tokenizer over
// the returned text. Servers stream one token per chunk, so with
// Config.Chunk each chunk's text maps back to its ids (a vocabulary lookup,
// as the reference's SUT_API.py maps streamed token strings) and the first
// token reported is the first id of the response; without it the whole
// text is encoded at the end (Config.Encode). The run's logs say which,
// and Server reports whether a response's ids were the server's.
//
// API: https://platform.openai.com/docs/api-reference/completions (the
// legacy completions endpoint with stream=true: server-sent events, one
// JSON chunk per `data:` line, ending with `data: [DONE]`).
package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/internal/redact"
	"github.com/mlperf-go/inference/loadgen"
)

// Config configures a SUT.
type Config struct {
	// Endpoint is the server's base URL or host:port; requests go to
	// Endpoint/v1/completions.
	Endpoint string
	// Model is the served model's name ("model" in the request).
	Model string
	// APIKey, if set, is sent as a bearer token.
	APIKey string
	// MaxTokens is max_tokens of every request (the benchmark's limit).
	MaxTokens int
	// MaxInFlight bounds the requests in flight (and the connections);
	// samples beyond it wait in a queue (0: 64).
	MaxInFlight int
	// Timeout bounds one request from send to the end of its stream (0:
	// none beyond the run's context).
	Timeout time.Duration
	// Prompt returns the prompt text of a loaded sample.
	Prompt func(i loadgen.SampleIndex) (string, error)
	// Encode turns generated text into the benchmark's token ids, for the
	// accuracy log and the token counts.
	Encode func(text string) []int32
	// Chunk, if set, turns the text of one streamed chunk (one generated
	// token's text, e.g. " world") into its ids; a sample's ids are then
	// its chunks' ids in order, and Encode is not used.
	Chunk func(text string) []int32
	// Client, if set, replaces the pooled HTTP client New makes.
	Client *http.Client
}

// SUT is a loadgen SUT over an OpenAI-compatible server. IssueQuery never
// blocks: samples are queued and MaxInFlight workers send them. Close
// stops the workers and cancels the requests in flight; samples still
// queued fail with ErrClosed.
//
// Every stream is bounded whatever the server sends: a line of at most
// MaxLine bytes, a text of at most MaxTokens × MaxTokenBytes, at most
// MaxTokens server token ids, and at most MaxTokens × 4 + 4096 lines.
type SUT struct {
	cfg    Config
	url    string
	base   string
	client *http.Client
	// auth is the Authorization header value ("" for none).
	auth string
	// ctx ends every request in flight when the SUT is closed.
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []job
	closed bool
	wg     sync.WaitGroup

	serverIDs atomic.Bool // a response's ids came from the server's token_ids
}

// ServerTokenIDs reports whether any response so far took its token ids
// from the server (token_ids in the stream) rather than the tokenizer. It
// is safe for concurrent use.
func (s *SUT) ServerTokenIDs() bool { return s.serverIDs.Load() }

type job struct {
	ctx context.Context
	s   loadgen.Sample
	c   loadgen.Completer
}

// ErrClosed fails samples still queued (or in flight) when the SUT is
// closed.
var ErrClosed = errors.New("openai: SUT closed")

// Stream bounds.
const (
	// MaxLine is the longest line of a stream, in bytes: one event of a
	// completion chunk is a few hundred.
	MaxLine = 256 << 10
	// MaxTokenBytes is the most text one generated token may carry, in
	// bytes (the longest token of the suite's vocabularies is under 64).
	MaxTokenBytes = 256
)

// CheckEndpoint reports whether endpoint is a server's base URL (host:port
// or an http(s) URL) without contacting it, so that a command can refuse
// a malformed --endpoint before it loads anything. The URL may end in /v1;
// one ending in an API path (/v1/completions) is refused: the client adds
// it.
func CheckEndpoint(endpoint string) error {
	shown := redact.URL(endpoint)
	if strings.ContainsAny(endpoint, ", ") {
		return fmt.Errorf("openai: endpoint %q holds a comma or a space: give one server's URL (put a load balancer in front of several)", shown)
	}
	ep := endpoint
	if !strings.Contains(ep, "://") {
		ep = "http://" + ep
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("openai: endpoint %q is not host:port or an http(s) URL", shown)
	}
	p := strings.TrimRight(u.Path, "/")
	for _, api := range []string{"/v1/completions", "/v1/chat/completions", "/v1/models"} {
		if strings.HasSuffix(p, api) {
			base := *u
			base.Path = strings.TrimSuffix(p, api)
			return fmt.Errorf("openai: endpoint %q ends in the API path %s; give the server's base URL %s (the client adds /v1/completions)", shown, api, base.Redacted())
		}
	}
	return nil
}

// New checks cfg and starts the workers.
func New(cfg Config) (*SUT, error) {
	if cfg.Endpoint == "" {
		return nil, errors.New("openai: no endpoint given (--endpoint URL of an OpenAI-compatible server)")
	}
	if err := CheckEndpoint(cfg.Endpoint); err != nil {
		return nil, err
	}
	ep := cfg.Endpoint
	if !strings.Contains(ep, "://") {
		ep = "http://" + ep
	}
	u, _ := url.Parse(ep) // CheckEndpoint parsed it
	if cfg.Prompt == nil || cfg.Encode == nil {
		return nil, errors.New("openai: Config needs Prompt and Encode")
	}
	if cfg.MaxTokens < 1 {
		return nil, fmt.Errorf("openai: max_tokens %d: want at least 1", cfg.MaxTokens)
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 64
	}
	base := u.Scheme + "://" + u.Host + strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	client := cfg.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        cfg.MaxInFlight,
			MaxIdleConnsPerHost: cfg.MaxInFlight,
			MaxConnsPerHost:     cfg.MaxInFlight,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	s := &SUT{cfg: cfg, base: base, url: base + "/v1/completions", client: client}
	switch {
	case cfg.APIKey != "":
		s.auth = "Bearer " + cfg.APIKey
	case u.User != nil:
		pw, _ := u.User.Password()
		s.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
	}
	s.ctx, s.cancel = context.WithCancelCause(context.Background())
	s.cond = sync.NewCond(&s.mu)
	for range cfg.MaxInFlight {
		s.wg.Add(1)
		go s.work()
	}
	return s, nil
}

// MaxInFlight is the most requests in flight at once.
func (s *SUT) MaxInFlight() int { return s.cfg.MaxInFlight }

// Check asks the server for its models (GET /v1/models): an unreachable
// server or an error answer is an error, so a run fails at start rather
// than sample by sample.
func (s *SUT) Check(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/v1/models", nil)
	if err != nil {
		return fmt.Errorf("openai: %w", err)
	}
	s.setAuth(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("openai: the server at %s does not answer: %w", s.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("openai: %s/v1/models: HTTP %d: %s", s.base, resp.StatusCode, s.errorText(resp.Body))
	}
	return nil
}

// errorText is the start of an error answer's body, trimmed, with the
// API key masked (a server may echo it).
func (s *SUT) errorText(body io.Reader) string {
	msg, _ := io.ReadAll(io.LimitReader(body, 512))
	return s.redact(strings.TrimSpace(string(msg)))
}

// redact masks the API key in text from the server.
func (s *SUT) redact(text string) string { return redact.Secret(text, s.cfg.APIKey) }

// Name asks the server for its models (one network round trip) and
// returns a description of the endpoint for the logs.
func (s *SUT) Name() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/v1/models", nil)
	if err != nil {
		return "OpenAI-compatible server at " + s.base
	}
	s.setAuth(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Sprintf("OpenAI-compatible server at %s (unreachable: %v)", s.base, s.redact(err.Error()))
	}
	defer resp.Body.Close()
	var m struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m)
	var ids []string
	for _, d := range m.Data {
		ids = append(ids, d.ID)
	}
	return fmt.Sprintf("OpenAI-compatible server at %s serving %s (model %s)", s.base, s.redact(strings.Join(ids, ",")), s.cfg.Model)
}

func (s *SUT) setAuth(r *http.Request) {
	if s.auth != "" {
		r.Header.Set("Authorization", s.auth)
	}
}

// IssueQuery implements loadgen.SUT: it queues the samples and returns.
func (s *SUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		for _, x := range samples {
			c.Complete(loadgen.Response{ID: x.ID, Err: ErrClosed})
		}
		return
	}
	for _, x := range samples {
		s.queue = append(s.queue, job{ctx: ctx, s: x, c: c})
	}
	s.mu.Unlock()
	if len(samples) == 1 {
		s.cond.Signal()
	} else {
		s.cond.Broadcast()
	}
}

// Close fails the samples still queued, cancels the requests in flight
// (their samples fail with ErrClosed) and returns once the workers have
// stopped: after a run, a server that holds its streams open does not
// hold the process.
func (s *SUT) Close() error {
	s.mu.Lock()
	s.closed = true
	q := s.queue
	s.queue = nil
	s.mu.Unlock()
	s.cancel(ErrClosed)
	s.cond.Broadcast()
	for _, j := range q {
		j.c.Complete(loadgen.Response{ID: j.s.ID, Err: ErrClosed})
	}
	s.wg.Wait()
	s.client.CloseIdleConnections()
	return nil
}

func (s *SUT) work() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.cond.Wait()
		}
		if s.closed {
			s.mu.Unlock()
			return
		}
		j := s.queue[0]
		s.queue[0] = job{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		s.run(j)
	}
}

// run sends one sample and completes it.
func (s *SUT) run(j job) {
	ids, err := s.complete(j)
	if err != nil {
		j.c.Complete(loadgen.Response{ID: j.s.ID, Err: err})
		return
	}
	j.c.Complete(loadgen.Response{ID: j.s.ID, Data: idsBytes(ids), Tokens: len(ids)})
}

// idsBytes is the accuracy log's form of token ids: little-endian int32.
func idsBytes(ids []int32) []byte {
	b := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint32(b, uint32(id))
	}
	return b
}

// request is the body of a completions request.
type request struct {
	Model       string  `json:"model"`
	Prompt      string  `json:"prompt"`
	MaxTokens   int     `json:"max_tokens"`
	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p"`
	Stream      bool    `json:"stream"`
}

// chunk is one streamed event.
type chunk struct {
	Choices []struct {
		Text         string  `json:"text"`
		TokenIDs     []int32 `json:"token_ids"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// complete streams one completion and returns the generated ids.
func (s *SUT) complete(j job) ([]int32, error) {
	prompt, err := s.cfg.Prompt(j.s.Index)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(request{Model: s.cfg.Model, Prompt: prompt, MaxTokens: s.cfg.MaxTokens, Temperature: 0, TopP: 1, Stream: true})
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	// The request ends with the sample's context, the SUT's (Close) or
	// the timeout, whichever comes first.
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	stop := context.AfterFunc(j.ctx, func() { cancel(context.Cause(j.ctx)) })
	defer stop()
	if s.cfg.Timeout > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, s.cfg.Timeout)
		defer c()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	s.setAuth(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, s.requestError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("openai: %s: HTTP %d: %s", s.url, resp.StatusCode, s.errorText(resp.Body))
	}
	ids, err := s.readStream(resp.Body, j)
	if err != nil && ctx.Err() != nil {
		return nil, s.requestError(ctx, err)
	}
	return ids, err
}

// requestError says why a request ended: the SUT closed, the timeout, or
// the network error itself (with the API key masked).
func (s *SUT) requestError(ctx context.Context, err error) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrClosed):
		return fmt.Errorf("%w: the request to %s was still in flight", ErrClosed, s.url)
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Errorf("openai: %s: no complete answer within the request timeout of %v", s.url, s.cfg.Timeout)
	}
	return fmt.Errorf("openai: %s: %s", s.url, s.redact(err.Error()))
}

// readStream reads a completion stream (server-sent events) to its
// [DONE], reporting the first token to j's completer, and returns the
// generated ids. Whatever the server sends, it holds at most MaxLine
// bytes of a line, MaxTokens × MaxTokenBytes of text and MaxTokens ids,
// and reads at most MaxTokens × 4 + 4096 lines.
func (s *SUT) readStream(body io.Reader, j job) ([]int32, error) {
	maxText := s.cfg.MaxTokens*MaxTokenBytes + 4096
	maxLines := 4*s.cfg.MaxTokens + 4096
	var text strings.Builder
	var ids []int32    // with Chunk: the chunks' ids so far
	var server []int32 // the server's own ids, where its chunks carry them
	withIDs, withoutIDs := false, false
	first, done := false, false
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 4<<10), MaxLine)
	for lines := 1; sc.Scan(); lines++ {
		if lines > maxLines {
			return nil, fmt.Errorf("openai: %s: the stream runs past %d lines without [DONE] (max_tokens %d takes one event each): the server does not end it", s.url, maxLines, s.cfg.MaxTokens)
		}
		line := sc.Bytes()
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // blank separators, comments, event: lines
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			done = true
			break
		}
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return nil, fmt.Errorf("openai: %s: a streamed event is not a completion chunk: %q", s.url, s.redact(truncate(data)))
		}
		if ch.Error != nil {
			return nil, fmt.Errorf("openai: %s: server error mid-stream: %s", s.url, s.redact(ch.Error.Message))
		}
		for _, c := range ch.Choices {
			if text.Len()+len(c.Text) > maxText {
				return nil, fmt.Errorf("openai: %s: the stream's text runs past %d bytes, more than max_tokens %d tokens of at most %d bytes each", s.url, maxText, s.cfg.MaxTokens, MaxTokenBytes)
			}
			text.WriteString(c.Text)
			switch {
			case len(c.TokenIDs) > 0:
				withIDs = true
				if len(server)+len(c.TokenIDs) > s.cfg.MaxTokens {
					return nil, fmt.Errorf("openai: %s: the stream gives more than max_tokens %d token ids", s.url, s.cfg.MaxTokens)
				}
				server = append(server, c.TokenIDs...)
			case c.Text != "":
				withoutIDs = true
				if s.cfg.Chunk != nil {
					ids = append(ids, s.cfg.Chunk(c.Text)...)
				}
			}
		}
		if withIDs && withoutIDs {
			return nil, fmt.Errorf("openai: %s: the stream gives token_ids with some chunks and not others; cannot tell the response's ids", s.url)
		}
		if !first && (text.Len() > 0 || len(server) > 0) {
			soFar := ids
			switch {
			case withIDs:
				soFar = server
			case s.cfg.Chunk == nil:
				soFar = s.cfg.Encode(text.String())
			}
			if len(soFar) > 0 {
				first = true
				if tc, ok := j.c.(loadgen.TokenCompleter); ok {
					tc.FirstToken(j.s.ID, idsBytes(soFar[:1]))
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("openai: %s: a streamed line runs past %d bytes (an event is a few hundred): the server does not send completion chunks", s.url, MaxLine)
		}
		return nil, fmt.Errorf("openai: %s: the stream broke: %w", s.url, err)
	}
	if !done {
		return nil, fmt.Errorf("openai: %s: the stream ended without [DONE] (server died or cut the connection)", s.url)
	}
	switch {
	case withIDs:
		ids = server
		s.serverIDs.Store(true)
	case s.cfg.Chunk == nil:
		ids = s.cfg.Encode(text.String())
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("openai: %s: empty completion", s.url)
	}
	if !first {
		if tc, ok := j.c.(loadgen.TokenCompleter); ok {
			tc.FirstToken(j.s.ID, idsBytes(ids[:1]))
		}
	}
	return ids, nil
}

func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}
