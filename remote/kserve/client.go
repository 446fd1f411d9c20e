package kserve

import (
	"bytes"
	"context"
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
	// inferURL is infer parsed; each request copies it.
	inferURL *url.URL
	client   *http.Client
	meta     ModelMeta
	inputs   []backend.Info
	outputs  []backend.Info
}

// Dial checks that the server is ready and reads the model's metadata.
func Dial(ctx context.Context, cfg Config) (*Session, error) {
	base, err := baseURL(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, errors.New("kserve: no model name given (the server's name of the model, e.g. resnet50)")
	}
	client := cfg.Client
	if client == nil {
		n := cfg.MaxConns
		if n <= 0 {
			n = 256
		}
		client = &http.Client{Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        n,
			MaxIdleConnsPerHost: n,
			MaxConnsPerHost:     n,
			IdleConnTimeout:     90 * time.Second,
			// Tensors do not compress: no Accept-Encoding: gzip, which
			// Triton would honour at a CPU cost on both ends.
			DisableCompression: true,
		}}
	}
	model := base + "/v2/models/" + url.PathEscape(cfg.Model)
	if cfg.Version != "" {
		model += "/versions/" + url.PathEscape(cfg.Version)
	}
	s := &Session{cfg: cfg, base: base, infer: model + "/infer", client: client}
	if s.inferURL, err = url.Parse(s.infer); err != nil {
		return nil, fmt.Errorf("kserve: model %q at %s: %w", cfg.Model, base, err)
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
	return s, nil
}

// baseURL turns "host:port" or a URL into "scheme://host:port".
func baseURL(endpoint string) (string, error) {
	if endpoint == "" {
		return "", errors.New("kserve: no endpoint given (--endpoint host:port)")
	}
	if err := oneEndpoint(endpoint); err != nil {
		return "", err
	}
	full := endpoint
	if !strings.Contains(full, "://") {
		full = "http://" + full
	}
	u, err := url.Parse(full)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("kserve: endpoint %q is not host:port or an http(s) URL", endpoint)
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.Path, "/"), nil
}

// getJSON GETs url into v, turning HTTP and decoding errors into errors
// that name the server.
func (s *Session) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("kserve: %w", err)
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
	js, payloads, err := s.encodeRequest(in)
	if err != nil {
		return nil, Timings{}, err
	}
	jsonLen := len(js)
	// Large tensors go to the connection as they are, not copied into one
	// body first; a small body is one buffer (one write).
	size := int64(len(js))
	for _, p := range payloads {
		size += int64(len(p))
	}
	if size <= 64<<10 {
		one := js
		if int64(cap(js)) < size {
			one = make([]byte, 0, size)
			one = append(one, js...)
		}
		for _, p := range payloads {
			one = append(one, p...)
		}
		js, payloads = one, nil
	}
	newBody := func() io.Reader {
		if len(payloads) == 0 {
			// net/http sends a *bytes.Reader body with the header in one
			// write.
			return bytes.NewReader(js)
		}
		rs := make([]io.Reader, 0, 1+len(payloads))
		rs = append(rs, bytes.NewReader(js))
		for _, p := range payloads {
			rs = append(rs, bytes.NewReader(p))
		}
		return io.MultiReader(rs...)
	}
	if s.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
	}
	// The request is built from the URL parsed once at Dial: what
	// http.NewRequestWithContext makes, without parsing it again.
	u := *s.inferURL
	hreq := (&http.Request{
		Method: http.MethodPost, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{
			"Content-Type": {"application/octet-stream"},
			HeaderLength:   {strconv.Itoa(jsonLen)},
		},
		Body:          io.NopCloser(newBody()),
		GetBody:       func() (io.ReadCloser, error) { return io.NopCloser(newBody()), nil },
		ContentLength: size,
		Host:          strings.TrimSuffix(u.Host, ":"), // as NewRequest drops an empty port
	}).WithContext(ctx)
	resp, err := s.client.Do(hreq)
	if err != nil {
		return nil, Timings{}, fmt.Errorf("kserve: infer on %s: %w", s.base, err)
	}
	defer resp.Body.Close()
	// The answer is read into a pooled buffer: the tensors are copied out
	// of it before it goes back.
	buf, err := readAnswer(resp.Body, resp.ContentLength)
	defer answerPool.Put(buf)
	rb := *buf
	if err != nil {
		return nil, Timings{}, fmt.Errorf("kserve: infer on %s: reading the answer: %w", s.base, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, Timings{}, fmt.Errorf("kserve: infer on %s: HTTP %d: %s", s.base, resp.StatusCode, errorText(rb))
	}
	hl := int64(-1)
	if h := resp.Header.Get(HeaderLength); h != "" {
		if hl, err = strconv.ParseInt(h, 10, 64); err != nil || hl < 0 {
			return nil, Timings{}, fmt.Errorf("kserve: infer on %s: bad %s %q", s.base, HeaderLength, h)
		}
	}
	js, bin, err := splitBody(rb, hl)
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

// answerPool holds answer body buffers (*[]byte) of the client.
var answerPool sync.Pool

// readAnswer reads an answer body of n bytes (n < 0: unknown) into a
// buffer from answerPool; the caller puts it back.
func readAnswer(r io.Reader, n int64) (*[]byte, error) {
	if n < 0 || n >= 1<<31 {
		b, err := io.ReadAll(r)
		return &b, err
	}
	p, _ := answerPool.Get().(*[]byte)
	if p == nil || int64(cap(*p)) < n {
		b := make([]byte, n)
		p = &b
	}
	*p = (*p)[:n]
	_, err := io.ReadFull(r, *p)
	return p, err
}

// encodeRequest returns an inference request's JSON header, with room
// after it for small payloads, and the tensors' payloads.
func (s *Session) encodeRequest(in []backend.Tensor) ([]byte, [][]byte, error) {
	js, payloads, ok, err := appendRequest(make([]byte, 0, 512), in, s.outputs, make([][]byte, 0, len(in)))
	if ok || err != nil {
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
	return nil
}

var _ backend.Session = (*Session)(nil)
