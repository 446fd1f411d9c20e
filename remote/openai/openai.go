// Package openai drives LLM serving engines as a loadgen SUT for the
// decoder benchmarks: OpenAI-compatible servers (vLLM, SGLang, TGI,
// TensorRT-LLM, ollama, `mlperf serve`) over /v1/completions and
// /v1/chat/completions, and SGLang's native /generate. Every sample is one
// streamed request with greedy settings; the first generated token is the
// sample's first token (TTFT), the end of the stream its completion.
//
// Several endpoints (replicas of one model) share the samples: each
// request goes to the endpoint with the fewest requests in flight, ties
// taken in turn. Every endpoint's requests, failures, latency and TTFT are
// kept (EndpointStats) for the run's logs. A dead endpoint fails the
// samples sent to it, as data; the others go on.
//
// Prompts go as the benchmark's token ids where the server takes them
// (vLLM and SGLang take a list of ids as `prompt`; SGLang's /generate
// takes `input_ids`), so that server and reference run the same tokens,
// and as text where it does not (ollama, TGI). Config.Form chooses; the
// default asks every endpoint once (Check). A benchmark whose reference
// applies a chat template sends it as a user message to
// /v1/chat/completions when it sends text, so that the server applies the
// model's template; its ids carry the template already.
//
// A response's token ids are the server's where its stream carries them
// (vLLM's `token_ids` with return_token_ids, logprobs tokens written as
// "token_id:N", SGLang's `output_ids`), checked against the benchmark's
// vocabulary (Config.Vocab). Otherwise they are the benchmark's tokenizer
// over the returned text: with Config.Chunk each streamed chunk's text
// maps back to its ids (servers stream one token per chunk; a vocabulary
// lookup, as the reference's SUT_API.py maps streamed token strings),
// without it the whole text is encoded at the end (Config.Encode).
// IDSources counts which, for the logs.
//
// APIs: https://platform.openai.com/docs/api-reference/completions and
// .../chat (server-sent events, one JSON chunk per `data:` line, ending
// with `data: [DONE]`); vLLM's extensions (vllm-project/vllm
// vllm/entrypoints/openai/completion/protocol.py: prompt as ids,
// return_token_ids); SGLang's /generate (sgl-project/sglang
// python/sglang/srt/entrypoints/http_server.py: input_ids,
// sampling_params, stream; chunks of text, output_ids and meta_info,
// cumulative by default, increments with --incremental-streaming-output).
package openai

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
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

// API is the wire format of the servers.
type API int

const (
	// Completions is the OpenAI-compatible API: /v1/completions, and
	// /v1/chat/completions for a chat benchmark's text prompts.
	Completions API = iota
	// SGLang is SGLang's native /generate.
	SGLang
)

func (a API) String() string {
	if a == SGLang {
		return "SGLang /generate"
	}
	return "OpenAI-compatible"
}

// Form is how prompts are sent.
type Form int

const (
	// FormAuto sends token ids where every endpoint takes them (Check asks
	// each once with Config.ProbeIDs), text otherwise; SGLang takes ids.
	FormAuto Form = iota
	// FormIDs sends the benchmark's token ids.
	FormIDs
	// FormText sends the prompt text.
	FormText
)

// Forms are the names ParseForm takes, in Form order.
var Forms = []string{"auto", "ids", "text"}

func (f Form) String() string {
	if f < 0 || int(f) >= len(Forms) {
		return fmt.Sprintf("Form(%d)", int(f))
	}
	return Forms[f]
}

// ParseForm parses "auto", "ids" or "text".
func ParseForm(s string) (Form, error) {
	for i, n := range Forms {
		if s == n {
			return Form(i), nil
		}
	}
	return 0, fmt.Errorf("openai: prompt form %q: want %s", s, strings.Join(Forms, ", "))
}

// Prompt is one sample's prompt in both forms.
type Prompt struct {
	// IDs are the benchmark's input ids, as its reference runs them (BOS
	// and any template included).
	IDs []int32
	// Text is the prompt as text: the whole prompt, or with Config.Chat
	// the user message that the model's chat template wraps.
	Text string
}

// Config configures a SUT.
type Config struct {
	// Endpoints are the servers' base URLs or host:port (replicas of one
	// model); requests go to Endpoint/v1/completions (or /generate).
	Endpoints []string
	// API is the servers' wire format.
	API API
	// Model is the served model's name ("model" in the request).
	Model string
	// APIKey, if set, is sent as a bearer token.
	APIKey string
	// MaxTokens is max_tokens of every request (the benchmark's limit).
	MaxTokens int
	// MaxInFlight bounds the requests in flight over all endpoints (and
	// the connections); samples beyond it wait in a queue (0: 64).
	MaxInFlight int
	// Timeout bounds one request from send to the end of its stream (0:
	// none beyond the run's context).
	Timeout time.Duration
	// Prompt returns the prompt of a loaded sample.
	Prompt func(i loadgen.SampleIndex) (Prompt, error)
	// Form is how prompts are sent (FormAuto: as Check finds).
	Form Form
	// Chat says that the benchmark's reference applies the model's chat
	// template: prompts sent as text go to /v1/chat/completions as a user
	// message.
	Chat bool
	// ProbeIDs are a short prompt of valid ids that Check sends to each
	// endpoint with FormAuto to learn whether it takes ids (none: text).
	ProbeIDs []int32
	// Vocab, if positive, is the benchmark's vocabulary size: a server id
	// outside [0, Vocab) fails the sample (the server runs another
	// model).
	Vocab int
	// Encode turns generated text into the benchmark's token ids, for the
	// accuracy log and the token counts.
	Encode func(text string) []int32
	// Chunk, if set, turns the text of one streamed chunk (one generated
	// token's text, e.g. " world") into its ids; a sample's ids are then
	// its chunks' ids in order, and Encode is not used.
	Chunk func(text string) []int32
	// Client, if set, replaces the pooled HTTP client New makes.
	Client *http.Client
	// Served, if set, is told which endpoint (its index in Endpoints)
	// took each sample, just before the sample completes, from the
	// worker's goroutine.
	Served func(id loadgen.ResponseID, endpoint int)
}

// SUT is a loadgen SUT over LLM serving engines. IssueQuery never blocks:
// samples are queued and MaxInFlight workers send them, each to the
// endpoint with the fewest requests in flight. Close stops the workers
// and cancels the requests in flight; samples still queued fail with
// ErrClosed.
//
// Every stream is bounded whatever the server sends: a line of at most
// MaxLine bytes, a text of at most MaxTokens × MaxTokenBytes, at most
// MaxTokens server token ids, and at most MaxTokens × 4 + 4096 lines.
type SUT struct {
	cfg    Config
	eps    []*endpoint
	client *http.Client
	// auth is the Authorization header value ("" for none); an endpoint
	// URL with credentials has its own.
	auth string
	// form is the resolved prompt form (FormIDs or FormText); formNote
	// says why, for the logs.
	form     Form
	formNote string
	// ctx ends every request in flight when the SUT is closed.
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []job
	closed bool
	next   int // the endpoint a tie goes to
	wg     sync.WaitGroup

	// Responses whose ids were the server's, and the tokenizer's over the
	// text; responses whose tokenizer ids differ in number from the
	// server's count of generated tokens (usage).
	serverIDs, textIDs, miscounted atomic.Int64
}

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
	// completion chunk is a few hundred (SGLang's cumulative chunks a few
	// kB).
	MaxLine = 256 << 10
	// MaxTokenBytes is the most text one generated token may carry, in
	// bytes (the longest token of the suite's vocabularies is under 64).
	MaxTokenBytes = 256
	// MaxEndpoints is the most endpoints one SUT takes (as many as a
	// per-query record names, loadgen/querylog).
	MaxEndpoints = 255
)

// apiPaths are the API paths an endpoint must not end in (the client adds
// them).
var apiPaths = []string{"/v1/completions", "/v1/chat/completions", "/v1/models", "/generate"}

// CheckEndpoint reports whether endpoint is a server's base URL (host:port
// or an http(s) URL) without contacting it, so that a command can refuse
// a malformed --endpoint before it loads anything. The URL may end in /v1;
// one ending in an API path (/v1/completions) is refused: the client adds
// it.
func CheckEndpoint(endpoint string) error {
	shown := redact.URL(endpoint)
	if strings.ContainsAny(endpoint, ", ") {
		return fmt.Errorf("openai: endpoint %q holds a comma or a space: give one server's URL per --endpoint (repeat the flag for several)", shown)
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
	for _, api := range apiPaths {
		if strings.HasSuffix(p, api) {
			base := *u
			base.Path = strings.TrimSuffix(p, api)
			return fmt.Errorf("openai: endpoint %q ends in the API path %s; give the server's base URL %s (the client adds the API path)", shown, api, base.Redacted())
		}
	}
	return nil
}

// New checks cfg and starts the workers; it does not contact the servers
// (Check does).
func New(cfg Config) (*SUT, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("openai: no endpoint given (--endpoint URL of a serving engine)")
	}
	if len(cfg.Endpoints) > MaxEndpoints {
		return nil, fmt.Errorf("openai: %d endpoints: at most %d", len(cfg.Endpoints), MaxEndpoints)
	}
	if cfg.Prompt == nil || cfg.Encode == nil {
		return nil, errors.New("openai: Config needs Prompt and Encode")
	}
	if cfg.MaxTokens < 1 {
		return nil, fmt.Errorf("openai: max_tokens %d: want at least 1", cfg.MaxTokens)
	}
	if cfg.API != Completions && cfg.API != SGLang {
		return nil, fmt.Errorf("openai: unknown API %d", cfg.API)
	}
	if cfg.Form < FormAuto || cfg.Form > FormText {
		return nil, fmt.Errorf("openai: unknown prompt form %d", cfg.Form)
	}
	if cfg.API == SGLang && cfg.Chat && cfg.Form == FormText {
		return nil, errors.New("openai: SGLang's /generate does not apply the model's chat template, which this benchmark's prompts need as text: send token ids (--prompt-form ids or auto), or use --backend openai (/v1/chat/completions)")
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 64
	}
	s := &SUT{cfg: cfg}
	seen := map[string]bool{}
	for _, raw := range cfg.Endpoints {
		if err := CheckEndpoint(raw); err != nil {
			return nil, err
		}
		ep := newEndpoint(raw, cfg.API)
		ep.index = len(s.eps)
		if seen[ep.base] {
			return nil, fmt.Errorf("openai: endpoint %s given twice", ep.base)
		}
		seen[ep.base] = true
		s.eps = append(s.eps, ep)
	}
	if cfg.APIKey != "" {
		s.auth = "Bearer " + cfg.APIKey
	}
	for _, ep := range s.eps {
		ep.auth = s.auth
		if ep.auth == "" && ep.user != nil {
			pw, _ := ep.user.Password()
			ep.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(ep.user.Username()+":"+pw))
		}
	}
	s.client = cfg.Client
	if s.client == nil {
		s.client = &http.Client{Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        cfg.MaxInFlight,
			MaxIdleConnsPerHost: cfg.MaxInFlight,
			MaxConnsPerHost:     cfg.MaxInFlight,
			IdleConnTimeout:     90 * time.Second,
			// A gzip reader would hold streamed events back until its
			// buffer fills: ask for the stream as the server writes it.
			DisableCompression: true,
		}}
	}
	s.form, s.formNote = cfg.Form, "as asked"
	switch {
	case cfg.Form != FormAuto:
	case cfg.API == SGLang:
		s.form, s.formNote = FormIDs, "/generate takes input_ids"
	case len(cfg.ProbeIDs) == 0:
		s.form, s.formNote = FormText, "the benchmark gives no probe prompt"
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

// Form is how prompts are sent: FormIDs or FormText once Check has run
// (FormAuto before, if Check has to ask).
func (s *SUT) Form() Form { return s.form }

// IDSources returns how many responses so far took their token ids from
// the server and how many from the tokenizer over the returned text, and
// of the latter how many differ in number from the server's own count of
// generated tokens (usage; such a response's TPOT is over the tokenizer's
// count). It is safe for concurrent use.
func (s *SUT) IDSources() (server, text, miscounted int64) {
	return s.serverIDs.Load(), s.textIDs.Load(), s.miscounted.Load()
}

// redact masks the API key in text from the server.
func (s *SUT) redact(text string) string { return redact.Secret(text, s.cfg.APIKey) }

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
		ep := s.pick()
		s.mu.Unlock()
		s.run(j, ep)
		s.mu.Lock()
		ep.inFlight--
		s.mu.Unlock()
	}
}

// pick returns the endpoint with the fewest requests in flight, ties
// going to the endpoints in turn, and counts the request in; s.mu is
// held.
func (s *SUT) pick() *endpoint {
	n := len(s.eps)
	best := s.eps[s.next%n]
	for k := 1; k < n; k++ {
		if e := s.eps[(s.next+k)%n]; e.inFlight < best.inFlight {
			best = e
		}
	}
	s.next = (s.next + 1) % n
	best.inFlight++
	return best
}
