package openai

import (
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mlperf-go/inference/internal/hist"
	"github.com/mlperf-go/inference/loadgen"
)

// endpoint is one server: its URLs, credentials, load and figures.
type endpoint struct {
	// base is the server's base URL without /v1 and without credentials,
	// as messages and the logs show it; url the generation path, chat
	// the chat one.
	base      string
	index     int // in Config.Endpoints
	url, chat string
	user      *url.Userinfo
	auth      string
	// inFlight is the requests sent and not yet done; SUT.mu guards it.
	inFlight int

	requests, failed atomic.Int64
	latency, ttft    hist.Hist // ns, from the request sent
}

// newEndpoint parses an endpoint CheckEndpoint accepted.
func newEndpoint(raw string, api API) *endpoint {
	ep := raw
	if !strings.Contains(ep, "://") {
		ep = "http://" + ep
	}
	u, _ := url.Parse(ep)
	base := u.Scheme + "://" + u.Host + strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	e := &endpoint{base: base, user: u.User}
	if api == SGLang {
		e.url = base + "/generate"
	} else {
		e.url, e.chat = base+"/v1/completions", base+"/v1/chat/completions"
	}
	return e
}

// EndpointStats are one endpoint's figures since the SUT started or the
// last ResetStats.
type EndpointStats struct {
	// Endpoint is the endpoint's base URL (without credentials).
	Endpoint string
	// Requests is the requests sent to it; Failed those whose sample
	// failed.
	Requests, Failed int64
	// Latency is the completed requests' time from sending to the end of
	// the stream, TTFT to their first token (ns).
	Latency, TTFT loadgen.Dist
}

// EndpointStats returns every endpoint's figures, in the order given. It
// is safe for concurrent use.
func (s *SUT) EndpointStats() []EndpointStats {
	out := make([]EndpointStats, len(s.eps))
	for i, e := range s.eps {
		out[i] = EndpointStats{Endpoint: e.base, Requests: e.requests.Load(), Failed: e.failed.Load(),
			Latency: e.latency.Dist(), TTFT: e.ttft.Dist()}
	}
	return out
}

// ResetStats starts the endpoints' figures afresh (e.g. after the
// accuracy series, so that they cover the performance run alone).
func (s *SUT) ResetStats() {
	for _, e := range s.eps {
		e.requests.Store(0)
		e.failed.Store(0)
		e.latency.Reset()
		e.ttft.Reset()
	}
}

// since is the ns from t0 to now.
func since(t0 time.Time) int64 { return time.Since(t0).Nanoseconds() }
