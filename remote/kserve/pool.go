package kserve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mlperf-go/inference/backend"
)

// Pool dispatches to several SUT nodes serving the same model, one request
// per Run, round-robin: the Query Dispatch Library of the Network division
// (no batching, padding, caching or post-processing here, as the rules ask
// of a QDL). It implements backend.Session; Run is safe for concurrent use.
type Pool struct {
	nodes []Node
	next  atomic.Uint64
}

// DialPool dials every endpoint with cfg (Endpoint replaced) and checks
// that they serve the same model contract.
func DialPool(ctx context.Context, endpoints []string, cfg Config) (*Pool, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("kserve: no endpoint given (--endpoint host:port, once per SUT node)")
	}
	p := &Pool{}
	for _, ep := range endpoints {
		c := cfg
		c.Endpoint = ep
		s, err := DialNode(ctx, c)
		if err != nil {
			p.Close()
			return nil, err
		}
		if len(p.nodes) > 0 {
			if err := sameContract(p.nodes[0], s); err != nil {
				s.Close()
				p.Close()
				return nil, err
			}
		}
		p.nodes = append(p.nodes, s)
	}
	return p, nil
}

func sameContract(a, b Node) error {
	eq := func(x, y []backend.Info) bool {
		return slices.EqualFunc(x, y, func(p, q backend.Info) bool {
			return p.Name == q.Name && p.DType == q.DType && slices.Equal(p.Shape, q.Shape)
		})
	}
	if !eq(a.Inputs(), b.Inputs()) || !eq(a.Outputs(), b.Outputs()) {
		return fmt.Errorf("kserve: the nodes at %s and %s serve model %s with different inputs or outputs", a.Endpoint(), b.Endpoint(), a.Meta().Name)
	}
	return nil
}

// Inputs implements backend.Session.
func (p *Pool) Inputs() []backend.Info { return p.nodes[0].Inputs() }

// Outputs implements backend.Session.
func (p *Pool) Outputs() []backend.Info { return p.nodes[0].Outputs() }

// Nodes is the number of SUT nodes.
func (p *Pool) Nodes() int { return len(p.nodes) }

// Run implements backend.Session on the next node in turn.
func (p *Pool) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	return p.pick(ctx).Run(ctx, in)
}

// Name asks every node for its name (a network round trip each, as the
// Network division's Name rule requires) and returns
// "Network SUT: node; node; ...". Each node must have a unique name (the
// same rule): a repeated one is an error.
func (p *Pool) Name(ctx context.Context) (string, error) {
	names := make([]string, len(p.nodes))
	for i, n := range p.nodes {
		s, err := n.Name(ctx)
		if err != nil {
			return "", err
		}
		if slices.Contains(names[:i], s) {
			return "", fmt.Errorf("kserve: two SUT nodes are both %q (is an --endpoint given twice?); each node needs a unique name", s)
		}
		names[i] = s
	}
	return "Network SUT: " + strings.Join(names, "; "), nil
}

// Close implements backend.Session.
func (p *Pool) Close() error {
	for _, n := range p.nodes {
		n.Close()
	}
	return nil
}

var _ backend.Session = (*Pool)(nil)

// NullSession answers every Run at once with zero-filled outputs of the
// declared types; a dynamic (-1) output dimension takes the first input's
// batch size. It is what `mlperf serve --sut null` serves, to measure the
// client and network path alone. It is safe for concurrent use.
type NullSession struct {
	In, Out []backend.Info
}

// Inputs implements backend.Session.
func (n *NullSession) Inputs() []backend.Info { return n.In }

// Outputs implements backend.Session.
func (n *NullSession) Outputs() []backend.Info { return n.Out }

// Run implements backend.Session.
func (n *NullSession) Run(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	batch := int64(1)
	if len(in) > 0 && len(in[0].Shape) > 0 {
		batch = in[0].Shape[0]
	}
	out := make([]backend.Tensor, len(n.Out))
	for i, o := range n.Out {
		shape := append([]int64(nil), o.Shape...)
		for k, d := range shape {
			if d < 0 {
				shape[k] = batch
				if k > 0 {
					shape[k] = 1
				}
			}
		}
		t, err := fromBytes(o.Name, o.DType, shape, make([]byte, elements(shape)*int64(o.DType.Size())))
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// Close implements backend.Session.
func (n *NullSession) Close() error { return nil }
