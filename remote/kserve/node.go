package kserve

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mlperf-go/inference/backend"
)

// Node is one SUT node serving a model over the Open Inference Protocol,
// whatever the transport: the REST Session here, or a gRPC one. All
// methods are safe for concurrent use.
type Node interface {
	backend.Session
	// RunTimed is Run that also returns the server-side timings the
	// server reported (zero where it reported none).
	RunTimed(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, Timings, error)
	// Name asks the server for its name (one network round trip) and
	// returns "name version at host:port".
	Name(ctx context.Context) (string, error)
	// Meta is the model metadata the server reported when dialled.
	Meta() ModelMeta
	// Endpoint is the server's address as dialled, for messages.
	Endpoint() string
}

// Protocols are the transports Config.Protocol may name; "http" (REST) is
// the default.
var Protocols = []string{"http"}

// dialers maps a protocol name to its dialer; a transport's file adds
// itself in an init function.
var (
	dialersMu sync.Mutex
	dialers   = map[string]func(context.Context, Config) (Node, error){
		"http": func(ctx context.Context, cfg Config) (Node, error) { return Dial(ctx, cfg) },
	}
)

// registerProtocol adds a transport; called from init functions only.
func registerProtocol(name string, dial func(context.Context, Config) (Node, error)) {
	dialersMu.Lock()
	defer dialersMu.Unlock()
	dialers[name] = dial
	Protocols = append(Protocols, name)
}

// DialNode dials cfg.Endpoint with cfg.Protocol ("" is "http").
func DialNode(ctx context.Context, cfg Config) (Node, error) {
	p := cfg.Protocol
	if p == "" {
		p = "http"
	}
	dialersMu.Lock()
	dial, ok := dialers[p]
	dialersMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("kserve: protocol %q is not known (want one of %s)", p, strings.Join(Protocols, ", "))
	}
	return dial(ctx, cfg)
}

// Endpoint implements Node.
func (s *Session) Endpoint() string {
	return strings.TrimPrefix(strings.TrimPrefix(s.base, "http://"), "https://")
}

// RunTimed is Run on the next node in turn, with the server's timings.
func (p *Pool) RunTimed(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, Timings, error) {
	return p.pick(ctx).RunTimed(ctx, in)
}

// nodeReportKey is the context key of WithNodeReport.
type nodeReportKey struct{}

// WithNodeReport returns ctx carrying i: a Pool's Run or RunTimed under it
// stores there the index (into Endpoints) of the node it sends the
// request to, so that a caller can tell which node served which samples.
func WithNodeReport(ctx context.Context, i *int) context.Context {
	return context.WithValue(ctx, nodeReportKey{}, i)
}

// pick returns the next node in turn, reporting its index to ctx's
// WithNodeReport.
func (p *Pool) pick(ctx context.Context) Node {
	i := int((p.next.Add(1) - 1) % uint64(len(p.nodes)))
	if r, ok := ctx.Value(nodeReportKey{}).(*int); ok && r != nil {
		*r = i
	}
	return p.nodes[i]
}

// Endpoints lists the nodes' endpoints, in the order WithNodeReport's
// indices count them (the order dialled).
func (p *Pool) Endpoints() []string {
	out := make([]string, len(p.nodes))
	for i, n := range p.nodes {
		out[i] = n.Endpoint()
	}
	return out
}

var _ Node = (*Session)(nil)
