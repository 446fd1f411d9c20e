package kserve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/internal/redact"
)

// Config says which remote model a Session runs.
type Config struct {
	// Endpoint is the server: "host:port" or an http(s) URL.
	Endpoint string
	// Model is the model name on the server; Version, if set, its version.
	Model, Version string
	// Timeout bounds one inference request (0: only the caller's context).
	Timeout time.Duration
	// MaxConns bounds the connections kept open to the server (0: 256).
	MaxConns int
	// Client, if set, replaces the pooled HTTP client Dial makes.
	Client *http.Client
	// Protocol is the transport DialNode and DialPool use: "http" (REST,
	// the default) or another name in Protocols.
	Protocol string
}

// Session is a model served over the Open Inference Protocol. It
// implements backend.Session; Run is safe for concurrent use and each call
// is one HTTP request over a pooled keep-alive connection.
type Session struct {
	cfg   Config
	base  string // http://host:port
	infer string // the model's infer URL
	// inferURL is infer parsed; each request copies it (Config.Client
	// only).
	inferURL *url.URL
	client   *http.Client
	// rest sends the inference requests (nil when Config.Client is set:
	// then client does).
	rest *restTransport
	// auth is the Authorization header of an endpoint with userinfo.
	auth    string
	meta    ModelMeta
	inputs  []backend.Info
	outputs []backend.Info
	// dynamicBatch: the inputs' leading dimension is the batch, and so is
	// a dynamic leading output dimension (else that is a count, e.g. of
	// detections, bounded by MaxDynamicDim).
	dynamicBatch bool
}

// Dial checks that the server is ready and reads the model's metadata.
// An endpoint with userinfo (http://user:pass@host:port) authenticates
// with HTTP basic authentication; messages show it with the password
// masked.
func Dial(ctx context.Context, cfg Config) (*Session, error) {
	u, err := endpointURL(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	base := u.Scheme + "://" + u.Host + strings.TrimRight(u.Path, "/")
	if cfg.Model == "" {
		return nil, errors.New("kserve: no model name given (the server's name of the model, e.g. resnet50)")
	}
	n := cfg.MaxConns
	if n <= 0 {
		n = 256
	}
	client := cfg.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        4,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		}}
	}
	model := base + "/v2/models/" + url.PathEscape(cfg.Model)
	if cfg.Version != "" {
		model += "/versions/" + url.PathEscape(cfg.Version)
	}
	s := &Session{cfg: cfg, base: base, infer: model + "/infer", client: client}
	if u.User != nil {
		pw, _ := u.User.Password()
		s.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
	}
	if s.inferURL, err = url.Parse(s.infer); err != nil {
		return nil, fmt.Errorf("kserve: model %q at %s: %w", cfg.Model, base, err)
	}
	if cfg.Client == nil {
		s.rest = newRESTTransport(u.Scheme, u.Host, s.inferURL.EscapedPath(), n, s.auth)
	}
	if err := s.getJSON(ctx, model, &s.meta); err != nil {
		return nil, err
	}
	if s.inputs, err = metaInfo(s.meta.Inputs); err != nil {
		return nil, fmt.Errorf("%w (model %s at %s)", err, cfg.Model, base)
	}
	if s.outputs, err = metaInfo(s.meta.Outputs); err != nil {
		return nil, fmt.Errorf("%w (model %s at %s)", err, cfg.Model, base)
	}
	if err := CheckContract(fmt.Sprintf("model %s at %s", cfg.Model, base), s.inputs, s.outputs); err != nil {
		return nil, err
	}
	s.dynamicBatch = len(s.inputs[0].Shape) > 0 && s.inputs[0].Shape[0] < 0
	return s, nil
}

// ErrModelNotServed marks a server that does not serve the model asked
// for (HTTP 404 on its metadata).
var ErrModelNotServed = errors.New("the server does not serve that model")

// baseURL turns "host:port" or a URL into "scheme://host:port[/path]",
// without userinfo.
func baseURL(endpoint string) (string, error) {
	u, err := endpointURL(endpoint)
	if err != nil {
		return "", err
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.Path, "/"), nil
}

// endpointURL parses "host:port" or an http(s) URL; the errors quote the
// endpoint with any password masked.
func endpointURL(endpoint string) (*url.URL, error) {
	if endpoint == "" {
		return nil, errors.New("kserve: no endpoint given (--endpoint host:port)")
	}
	if err := oneEndpoint(endpoint); err != nil {
		return nil, err
	}
	full := endpoint
	if !strings.Contains(full, "://") {
		full = "http://" + full
	}
	u, err := url.Parse(full)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("kserve: endpoint %q is not host:port or an http(s) URL", redact.URL(endpoint))
	}
	return u, nil
}

// getJSON GETs url into v, turning HTTP and decoding errors into errors
// that name the server.
func (s *Session) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("kserve: %w", err)
	}
	if s.auth != "" {
		req.Header.Set("Authorization", s.auth)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("kserve: %s: %w (is the server running?)", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("kserve: %s: %w", u, err)
	}
	if resp.StatusCode == http.StatusNotFound && v == any(&s.meta) {
		return fmt.Errorf("kserve: %s: HTTP %d: %s: %w", u, resp.StatusCode, errorText(body), ErrModelNotServed)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("kserve: %s: HTTP %d: %s", u, resp.StatusCode, errorText(body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("kserve: %s: the answer is not Open Inference Protocol JSON: %v", u, err)
	}
	return nil
}

func errorText(body []byte) string {
	var e ErrorResponse
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	if len(body) > 200 {
		body = body[:200]
	}
	return strings.TrimSpace(string(body))
}

// Inputs implements backend.Session (from the model metadata).
func (s *Session) Inputs() []backend.Info { return s.inputs }

// Outputs implements backend.Session (from the model metadata).
func (s *Session) Outputs() []backend.Info { return s.outputs }

// Meta returns the model metadata the server reported.
func (s *Session) Meta() ModelMeta { return s.meta }

// Name asks the server for its metadata (one network round trip) and
// returns "name version at host:port".
func (s *Session) Name(ctx context.Context) (string, error) {
	var m ServerMeta
	if err := s.getJSON(ctx, s.base+"/v2", &m); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s at %s", m.Name, m.Version, strings.TrimPrefix(strings.TrimPrefix(s.base, "http://"), "https://")), nil
}

// Run implements backend.Session: one inference request with binary
// tensor data both ways.
func (s *Session) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	out, _, err := s.RunTimed(ctx, in)
	return out, err
}

// RunTimed is Run that also returns the server-side timings the server
// reported (zero when it reports none).
func (s *Session) RunTimed(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, Timings, error) {
	sc := scratchPool.Get().(*scratch)
	defer func() {
		clear(sc.payloads[:cap(sc.payloads)]) // no hold on the caller's tensors
		scratchPool.Put(sc)
	}()
	js, payloads, err := s.encodeRequest(sc, in)
	if err != nil {
		return nil, Timings{}, err
	}
	if s.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
	}
	batch := outputBatch(s.dynamicBatch, in)
	limit := func(binary bool) int64 { return answerLimit(s.outputs, batch, binary) }
	if s.rest == nil {
		return s.runHTTP(ctx, js, payloads, limit, batch)
	}
	a, err := s.rest.roundTrip(ctx, js, payloads, limit)
	if err != nil {
		return nil, Timings{}, s.inferError(err, batch)
	}
	defer s.rest.done(&a)
	return s.decodeAnswer(a.status, a.jsonLen, a.body)
}

// inferError names the node and, for an answer over its bound, what
// bounds it.
func (s *Session) inferError(err error, batch int64) error {
	if errors.Is(err, errAnswerTooLarge) {
		return fmt.Errorf("kserve: infer on %s: %w; model %s's outputs (%s) for a batch of %d take at most that, with %d bytes for the JSON header: the server does not answer with the model it describes",
			s.base, err, s.meta.Name, infoList(s.outputs), batch, HeaderMargin)
	}
	return fmt.Errorf("kserve: infer on %s: %w", s.base, err)
}

// outputBatch is the size a dynamic leading output dimension may take for
// the request in: the request's batch where the inputs' leading dimension
// is dynamic, else MaxDynamicDim (a count such as detections).
func outputBatch(dynamicBatch bool, in []backend.Tensor) int64 {
	if !dynamicBatch {
		return MaxDynamicDim
	}
	b := int64(1)
	for _, t := range in {
		if len(t.Shape) > 0 {
			b = max(b, t.Shape[0])
		}
	}
	return b
}

// decodeAnswer turns an answer's status, JSON length (-1: none) and body
// into tensors; the tensors are copies, so body may be reused after.
func (s *Session) decodeAnswer(status int, jsonLen int64, body []byte) ([]backend.Tensor, Timings, error) {
	if status != http.StatusOK {
		return nil, Timings{}, fmt.Errorf("kserve: infer on %s: HTTP %d: %s", s.base, status, errorText(body))
	}
	js, bin, err := splitBody(body, jsonLen)
	if err != nil {
		return nil, Timings{}, err
	}
	var a answer
	if parseAnswer(js, &a) {
		if out, ok := a.decode(bin); ok {
			return out, a.t, nil
		}
	}
	// Anything else, and the errors, the general way.
	var ir InferResponse
	if err := json.Unmarshal(js, &ir); err != nil {
		return nil, Timings{}, fmt.Errorf("kserve: infer on %s: the answer is not Open Inference Protocol JSON: %v", s.base, err)
	}
	out, err := decodeTensors(ir.Outputs, bin)
	if err != nil {
		return nil, Timings{}, fmt.Errorf("%w (answer from %s)", err, s.base)
	}
	return out, timingsOf(ir.Parameters), nil
}

// runHTTP is one inference request through Config.Client (net/http), the
// body a net.Buffers (written without a copy where the transport can),
// the answer read up to its bound.
func (s *Session) runHTTP(ctx context.Context, js []byte, payloads [][]byte, limit func(bool) int64, batch int64) ([]backend.Tensor, Timings, error) {
	size := int64(len(js))
	for _, p := range payloads {
		size += int64(len(p))
	}
	newBody := func() io.ReadCloser {
		b := append(net.Buffers{js}, payloads...)
		return io.NopCloser(&b)
	}
	u := *s.inferURL
	hreq := (&http.Request{
		Method: http.MethodPost, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{
			"Content-Type": {"application/octet-stream"},
			HeaderLength:   {strconv.Itoa(len(js))},
		},
		Body:          newBody(),
		GetBody:       func() (io.ReadCloser, error) { return newBody(), nil },
		ContentLength: size,
		Host:          strings.TrimSuffix(u.Host, ":"), // as NewRequest drops an empty port
	}).WithContext(ctx)
	if s.auth != "" {
		hreq.Header.Set("Authorization", s.auth)
	}
	resp, err := s.client.Do(hreq)
	if err != nil {
		return nil, Timings{}, fmt.Errorf("kserve: infer on %s: %w", s.base, err)
	}
	defer resp.Body.Close()
	jsonLen := int64(-1)
	if h := resp.Header.Get(HeaderLength); h != "" {
		if jsonLen, err = strconv.ParseInt(h, 10, 64); err != nil || jsonLen < 0 {
			return nil, Timings{}, fmt.Errorf("kserve: infer on %s: bad %s %q", s.base, HeaderLength, h)
		}
	}
	max := int64(64 << 10)
	if resp.StatusCode == http.StatusOK {
		max = limit(jsonLen >= 0)
	}
	if resp.ContentLength > max && resp.StatusCode == http.StatusOK {
		return nil, Timings{}, s.inferError(fmt.Errorf("%w: it claims %d bytes, over the %d this request's answer can take", errAnswerTooLarge, resp.ContentLength, max), batch)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, Timings{}, fmt.Errorf("kserve: infer on %s: reading the answer: %w", s.base, err)
	}
	if int64(len(body)) > max {
		if resp.StatusCode == http.StatusOK {
			return nil, Timings{}, s.inferError(fmt.Errorf("%w: it runs past the %d bytes this request's answer can take", errAnswerTooLarge, max), batch)
		}
		body = body[:max]
	}
	return s.decodeAnswer(resp.StatusCode, jsonLen, body)
}

// scratch is the reusable space of one request's encoding.
type scratch struct {
	js       []byte
	payloads [][]byte
}

var scratchPool = sync.Pool{New: func() any { return &scratch{js: make([]byte, 0, 512)} }}

// encodeRequest returns an inference request's JSON header, written into
// sc, and the tensors' payloads (their own memory, not copied).
func (s *Session) encodeRequest(sc *scratch, in []backend.Tensor) ([]byte, [][]byte, error) {
	js, payloads, ok, err := appendRequest(sc.js[:0], in, s.outputs, sc.payloads[:0])
	if ok || err != nil {
		sc.js, sc.payloads = js, payloads[:0]
		return js, payloads, err
	}
	meta, payloads, err := encodeTensors(in)
	if err != nil {
		return nil, nil, err
	}
	req := InferRequest{Inputs: meta, Outputs: make([]RequestOutput, len(s.outputs))}
	for i, o := range s.outputs {
		req.Outputs[i] = RequestOutput{Name: o.Name, Parameters: map[string]any{"binary_data": true}}
	}
	js, err = json.Marshal(req)
	if err != nil {
		return nil, nil, fmt.Errorf("kserve: encoding the request: %w", err)
	}
	return js, payloads, nil
}

// Close implements backend.Session: it closes idle connections.
func (s *Session) Close() error {
	s.client.CloseIdleConnections()
	if s.rest != nil {
		s.rest.closeIdle()
	}
	return nil
}

var _ backend.Session = (*Session)(nil)
