package kserve

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/mlperf-go/inference/remote/kserve/pb"
)

// NewGRPCServer returns a grpc.Server that serves s's models over the
// Open Inference Protocol's gRPC API (service inference.GRPCInferenceService,
// as Triton and KServe serve it), with the same execution slots, queueing
// and timings as the REST API: both share s. opts are added to the
// server's options. Add the models first: a message may be as large as
// the largest model's RequestLimit, and a connection carries at most
// GRPCStreams() calls at once. The caller serves it (grpc.Server.Serve)
// and stops it with ShutdownGRPC.
func (s *Server) NewGRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	limit := int64(HeaderMargin)
	s.mu.RLock()
	for _, m := range s.models {
		limit = max(limit, m.maxBody)
	}
	s.mu.RUnlock()
	gs := grpc.NewServer(append([]grpc.ServerOption{grpc.MaxRecvMsgSize(int(limit)),
		grpc.MaxConcurrentStreams(uint32(s.GRPCStreams())),
		grpc.InitialWindowSize(streamWindow), grpc.InitialConnWindowSize(connWindow),
		grpc.ReadBufferSize(ioBuffer), grpc.WriteBufferSize(ioBuffer),
		experimental.BufferPool(grpcBuffers), grpc.ForceServerCodecV2(grpcCodec{}),
		grpc.StatsHandler(arrivals{}),
	}, opts...)...)
	pb.RegisterGRPCInferenceServiceServer(gs, grpcService{s: s})
	return gs
}

// GRPCStreams is the most calls one gRPC connection carries at once: the
// execution slots of every model plus one, so that one request's message
// arrives while the slots run (grpc-go reads a whole message before the
// handler runs, so this, times the connections, bounds the messages in
// memory; a client queues its further calls).
func (s *Server) GRPCStreams() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 1
	for _, m := range s.models {
		n += m.slots
	}
	return n
}

// ShutdownGRPC marks s not ready and stops gs gracefully: RPCs in flight
// finish and new ones are refused, until ctx ends; then gs stops at once
// (RPCs still running fail) and ctx's error is returned.
func (s *Server) ShutdownGRPC(ctx context.Context, gs *grpc.Server) error {
	s.SetReady(false)
	done := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		gs.Stop()
		<-done
		return ctx.Err()
	}
}

// grpcService implements the generated service over a Server.
type grpcService struct {
	pb.UnimplementedGRPCInferenceServiceServer
	s *Server
}

func (g grpcService) ServerLive(context.Context, *pb.ServerLiveRequest) (*pb.ServerLiveResponse, error) {
	return &pb.ServerLiveResponse{Live: true}, nil
}

func (g grpcService) ServerReady(context.Context, *pb.ServerReadyRequest) (*pb.ServerReadyResponse, error) {
	return &pb.ServerReadyResponse{Ready: g.s.ready.Load()}, nil
}

func (g grpcService) ModelReady(_ context.Context, r *pb.ModelReadyRequest) (*pb.ModelReadyResponse, error) {
	if _, err := g.s.lookup(r.GetName(), r.GetVersion()); err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return &pb.ModelReadyResponse{Ready: g.s.ready.Load()}, nil
}

func (g grpcService) ServerMetadata(context.Context, *pb.ServerMetadataRequest) (*pb.ServerMetadataResponse, error) {
	return &pb.ServerMetadataResponse{Name: g.s.Name, Version: g.s.Version}, nil
}

func (g grpcService) ModelMetadata(_ context.Context, r *pb.ModelMetadataRequest) (*pb.ModelMetadataResponse, error) {
	m, err := g.s.lookup(r.GetName(), r.GetVersion())
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	conv := func(ts []TensorMeta) []*pb.ModelMetadataResponse_TensorMetadata {
		out := make([]*pb.ModelMetadataResponse_TensorMetadata, len(ts))
		for i, t := range ts {
			out[i] = &pb.ModelMetadataResponse_TensorMetadata{Name: t.Name, Datatype: t.Datatype, Shape: t.Shape}
		}
		return out
	}
	return &pb.ModelMetadataResponse{Name: m.meta.Name, Versions: m.meta.Versions, Platform: m.meta.Platform, Inputs: conv(m.meta.Inputs), Outputs: conv(m.meta.Outputs)}, nil
}

// ModelInfer runs one request. Timings.Input runs from the arrival of the
// request's headers (as REST's from the handler's start) through reading
// and decoding the message to the tensors, Output covers turning the
// outputs into the response message (its encoding follows the handler).
func (g grpcService) ModelInfer(ctx context.Context, r *pb.ModelInferRequest) (*pb.ModelInferResponse, error) {
	t0, ok := ctx.Value(arrivalKey{}).(time.Time)
	if !ok {
		t0 = time.Now()
	}
	m, err := g.s.lookup(r.GetModelName(), r.GetModelVersion())
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	ins := r.GetInputs()
	if err := m.checkDeclared(len(ins), func(i int) (string, string, []int64) {
		return ins[i].GetName(), ins[i].GetDatatype(), ins[i].GetShape()
	}); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	in, err := decodePB(ins, r.GetRawInputContents())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	t1 := time.Now()
	out, tm, err := m.execute(ctx, in)
	tm.Input = t1.Sub(t0).Nanoseconds()
	t3 := time.Now()
	if err != nil {
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return nil, status.Error(codes.Internal, err.Error())
	}
	if want := r.GetOutputs(); len(want) > 0 {
		names := make([]RequestOutput, len(want))
		for i, w := range want {
			names[i].Name = w.GetName()
		}
		if out, err = selectOutputs(out, names); err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
	}
	resp := &pb.ModelInferResponse{
		ModelName: m.meta.Name, ModelVersion: "1", Id: r.GetId(),
		Outputs:           make([]*pb.ModelInferResponse_InferOutputTensor, len(out)),
		RawOutputContents: make([][]byte, len(out)),
	}
	for i, t := range out {
		dt, b, err := pbRaw(t)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		resp.Outputs[i] = &pb.ModelInferResponse_InferOutputTensor{Name: t.Name, Datatype: dt, Shape: t.Shape}
		resp.RawOutputContents[i] = b
	}
	tm.Output = time.Since(t3).Nanoseconds()
	resp.Parameters = pbTimings(tm)
	return resp, nil
}

// arrivals is a stats.Handler that stamps each RPC's context with the time
// its headers arrived (grpc-go tags an RPC then, before it reads and
// decodes the message), for Timings.Input.
type arrivals struct{}

type arrivalKey struct{}

func (arrivals) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return context.WithValue(ctx, arrivalKey{}, time.Now())
}
func (arrivals) HandleRPC(context.Context, stats.RPCStats) {}
func (arrivals) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (arrivals) HandleConn(context.Context, stats.ConnStats) {}
