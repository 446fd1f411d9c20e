package kserve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/status"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/internal/redact"
	"github.com/mlperf-go/inference/remote/kserve/pb"
)

func init() {
	registerProtocol("grpc", func(ctx context.Context, cfg Config) (Node, error) { return DialGRPC(ctx, cfg) })
}

// maxMessage bounds one gRPC message either way, in bytes (the REST
// server's default body limit).
const maxMessage = 1 << 30

// HTTP/2 flow-control windows and socket buffer sizes, in bytes, of both
// ends: a ResNet50 input (602 kB) fits one stream window, so a request is
// not held up by window updates, and many fit the connection's.
const (
	streamWindow = 4 << 20
	connWindow   = 64 << 20
	ioBuffer     = 256 << 10
)

// GRPCNode is a model served over the Open Inference Protocol's gRPC API
// (inference.GRPCInferenceService). It implements Node; every method is
// safe for concurrent use. All requests share one HTTP/2 connection
// (multiplexed; grpc-go reconnects it when it breaks), and each Run is one
// unary ModelInfer call with the tensors as raw contents.
type GRPCNode struct {
	cfg      Config
	target   string // host:port
	conn     *grpc.ClientConn
	client   pb.GRPCInferenceServiceClient
	meta     ModelMeta
	inputs   []backend.Info
	outputs  []backend.Info
	requests []*pb.ModelInferRequest_InferRequestedOutputTensor
	// dynamicBatch: see Session.dynamicBatch.
	dynamicBatch bool
}

// grpcTarget turns "host:port", "grpc://host:port" or "http://host:port"
// into host:port (gRPC here is plaintext HTTP/2: https is refused). The
// errors quote the endpoint as given and say what to write instead.
func grpcTarget(endpoint string) (string, error) {
	if endpoint == "" {
		return "", errors.New("kserve: no endpoint given (--endpoint host:port)")
	}
	if err := oneEndpoint(endpoint); err != nil {
		return "", err
	}
	full := endpoint
	if !strings.Contains(full, "://") {
		full = "grpc://" + full
	}
	u, err := url.Parse(full)
	shown := redact.URL(endpoint)
	switch {
	case err != nil || u.Host == "":
		return "", fmt.Errorf("kserve: endpoint %q is not host:port for gRPC (e.g. 127.0.0.1:8000, where mlperf serve listens)", shown)
	case u.Scheme == "https" || u.Scheme == "grpcs":
		return "", fmt.Errorf("kserve: endpoint %q: gRPC here is plaintext HTTP/2, without TLS; give host:port (put a TLS-terminating proxy in front of a TLS server)", shown)
	case u.Scheme != "grpc" && u.Scheme != "http":
		return "", fmt.Errorf("kserve: endpoint %q: unknown scheme %q; give host:port for gRPC", shown, u.Scheme)
	case u.User != nil:
		return "", fmt.Errorf("kserve: endpoint %q: gRPC here sends no credentials, so the user name and password would be ignored; give host:port (or use the REST protocol, which sends them as basic authentication)", shown)
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "":
		return "", fmt.Errorf("kserve: endpoint %q: gRPC takes host:port with no path; give %s", shown, u.Host)
	case u.Port() == "":
		return "", fmt.Errorf("kserve: endpoint %q has no port; give host:port (mlperf serve listens on port 8000 unless told otherwise)", shown)
	}
	return u.Host, nil
}

// oneEndpoint refuses a list where one endpoint is wanted.
func oneEndpoint(endpoint string) error {
	if strings.ContainsAny(endpoint, ", ") {
		return fmt.Errorf("kserve: endpoint %q holds a comma or a space: give one host:port per --endpoint, and repeat the flag for several nodes", redact.URL(endpoint))
	}
	return nil
}

// CheckEndpoint reports whether endpoint can be dialled over protocol (a
// name in Protocols; "" is http) without contacting it, so that a command
// can refuse a malformed --endpoint before it loads anything.
func CheckEndpoint(endpoint, protocol string) error {
	if protocol == "grpc" {
		_, err := grpcTarget(endpoint)
		return err
	}
	_, err := baseURL(endpoint)
	return err
}

// DialGRPC connects to cfg.Endpoint, checks that the server is ready and
// reads the model's metadata (cfg.Model, cfg.Version). cfg.Timeout bounds
// each inference call; MaxConns and Client are not used (one connection
// carries every call).
func DialGRPC(ctx context.Context, cfg Config) (*GRPCNode, error) {
	target, err := grpcTarget(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	if cfg.Model == "" {
		return nil, errors.New("kserve: no model name given (the server's name of the model, e.g. resnet50)")
	}
	// passthrough: the address goes to the dialer as it is (resolved by
	// the system resolver at each connect), as net.Dial would.
	conn, err := grpc.NewClient("passthrough:///"+target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage), grpc.ForceCodecV2(grpcCodec{})),
		grpc.WithInitialWindowSize(streamWindow), grpc.WithInitialConnWindowSize(connWindow),
		grpc.WithReadBufferSize(ioBuffer), grpc.WithWriteBufferSize(ioBuffer),
		experimental.WithBufferPool(grpcBuffers),
	)
	if err != nil {
		return nil, fmt.Errorf("kserve: gRPC endpoint %s: %w", target, err)
	}
	n := &GRPCNode{cfg: cfg, target: target, conn: conn, client: pb.NewGRPCInferenceServiceClient(conn)}
	if err := n.check(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return n, nil
}

// check asks for readiness and the model's metadata.
func (n *GRPCNode) check(ctx context.Context) error {
	ready, err := n.client.ServerReady(ctx, &pb.ServerReadyRequest{})
	if err != nil {
		return fmt.Errorf("kserve: gRPC ServerReady on %s: %w (is the server running, and serving gRPC?)", n.target, err)
	}
	if !ready.GetReady() {
		return fmt.Errorf("kserve: the gRPC server at %s is not ready (starting, or draining before a shutdown)", n.target)
	}
	md, err := n.client.ModelMetadata(ctx, &pb.ModelMetadataRequest{Name: n.cfg.Model, Version: n.cfg.Version})
	if status.Code(err) == codes.NotFound {
		return fmt.Errorf("kserve: gRPC ModelMetadata of %s on %s: %w: %w", n.cfg.Model, n.target, err, ErrModelNotServed)
	}
	if err != nil {
		return fmt.Errorf("kserve: gRPC ModelMetadata of %s on %s: %w", n.cfg.Model, n.target, err)
	}
	n.meta = pbMeta(md)
	if n.inputs, err = metaInfo(n.meta.Inputs); err != nil {
		return fmt.Errorf("%w (model %s at %s)", err, n.cfg.Model, n.target)
	}
	if n.outputs, err = metaInfo(n.meta.Outputs); err != nil {
		return fmt.Errorf("%w (model %s at %s)", err, n.cfg.Model, n.target)
	}
	if err := CheckContract(fmt.Sprintf("model %s at %s", n.cfg.Model, n.target), n.inputs, n.outputs); err != nil {
		return err
	}
	n.dynamicBatch = len(n.inputs[0].Shape) > 0 && n.inputs[0].Shape[0] < 0
	n.requests = make([]*pb.ModelInferRequest_InferRequestedOutputTensor, len(n.outputs))
	for i, o := range n.outputs {
		n.requests[i] = &pb.ModelInferRequest_InferRequestedOutputTensor{Name: o.Name}
	}
	return nil
}

// Inputs implements backend.Session (from the model metadata).
func (n *GRPCNode) Inputs() []backend.Info { return n.inputs }

// Outputs implements backend.Session (from the model metadata).
func (n *GRPCNode) Outputs() []backend.Info { return n.outputs }

// Meta implements Node.
func (n *GRPCNode) Meta() ModelMeta { return n.meta }

// Endpoint implements Node: host:port.
func (n *GRPCNode) Endpoint() string { return n.target }

// Name implements Node with one ServerMetadata call.
func (n *GRPCNode) Name(ctx context.Context) (string, error) {
	m, err := n.client.ServerMetadata(ctx, &pb.ServerMetadataRequest{})
	if err != nil {
		return "", fmt.Errorf("kserve: gRPC ServerMetadata on %s: %w", n.target, err)
	}
	return fmt.Sprintf("%s %s at %s", m.GetName(), m.GetVersion(), n.target), nil
}

// Run implements backend.Session: one ModelInfer call.
func (n *GRPCNode) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	out, _, err := n.RunTimed(ctx, in)
	return out, err
}

// RunTimed implements Node: one ModelInfer call, bounded by cfg.Timeout,
// with the timings from the response's parameters.
func (n *GRPCNode) RunTimed(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, Timings, error) {
	req := &pb.ModelInferRequest{
		ModelName: n.cfg.Model, ModelVersion: n.cfg.Version,
		Inputs:           make([]*pb.ModelInferRequest_InferInputTensor, len(in)),
		RawInputContents: make([][]byte, len(in)),
		Outputs:          n.requests,
	}
	for i, t := range in {
		dt, b, err := pbRaw(t)
		if err != nil {
			return nil, Timings{}, err
		}
		req.Inputs[i] = &pb.ModelInferRequest_InferInputTensor{Name: t.Name, Datatype: dt, Shape: t.Shape}
		req.RawInputContents[i] = b
	}
	if n.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, n.cfg.Timeout)
		defer cancel()
	}
	// The answer may be as large as the model's outputs for this batch
	// (twice that for typed contents' varints), and no larger.
	batch := outputBatch(n.dynamicBatch, in)
	limit := min(2*answerLimit(n.outputs, batch, true), MaxTensorBytes)
	resp, err := n.client.ModelInfer(ctx, req, grpc.MaxCallRecvMsgSize(int(limit)))
	if err != nil {
		if status.Code(err) == codes.ResourceExhausted && strings.Contains(err.Error(), "larger than max") {
			return nil, Timings{}, fmt.Errorf("kserve: gRPC infer on %s: %w; model %s's outputs (%s) for a batch of %d take at most %d bytes: the server does not answer with the model it describes",
				n.target, err, n.meta.Name, infoList(n.outputs), batch, limit)
		}
		return nil, Timings{}, fmt.Errorf("kserve: gRPC infer on %s: %w", n.target, err)
	}
	out, err := decodePB(resp.GetOutputs(), resp.GetRawOutputContents())
	if err != nil {
		return nil, Timings{}, fmt.Errorf("%w (answer from %s)", err, n.target)
	}
	// The outputs in the metadata's order, whatever the answer's.
	sorted := make([]backend.Tensor, len(n.outputs))
	for i, o := range n.outputs {
		k := slices.IndexFunc(out, func(t backend.Tensor) bool { return t.Name == o.Name })
		if k < 0 {
			return nil, Timings{}, fmt.Errorf("kserve: gRPC infer on %s: the answer lacks output %s (want %s)", n.target, o.Name, outputNames(n.outputs))
		}
		sorted[i] = out[k]
	}
	return sorted, timingsOfPB(resp.GetParameters()), nil
}

func outputNames(is []backend.Info) string {
	s := make([]string, len(is))
	for i, x := range is {
		s[i] = x.Name
	}
	return strings.Join(s, ", ")
}

// Close implements backend.Session: it closes the connection.
func (n *GRPCNode) Close() error { return n.conn.Close() }

var _ Node = (*GRPCNode)(nil)
