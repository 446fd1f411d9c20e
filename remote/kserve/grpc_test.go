package kserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/remote/kserve/pb"
)

// serveGRPC serves s over gRPC on a loopback port and returns the
// address; the server stops at cleanup.
func serveGRPC(t *testing.T, s *Server) (string, *grpc.Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := s.NewGRPCServer()
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	return ln.Addr().String(), gs
}

// echo returns its inputs as outputs "o<name>" after a delay, for every
// dtype the protocol carries.
type echo struct {
	info  []backend.Info
	delay time.Duration
}

func (e echo) Inputs() []backend.Info { return e.info }
func (e echo) Outputs() []backend.Info {
	out := make([]backend.Info, len(e.info))
	for i, x := range e.info {
		out[i] = x
		out[i].Name = "o" + x.Name
	}
	return out
}
func (e echo) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	select {
	case <-time.After(e.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	out := make([]backend.Tensor, len(in))
	for i, t := range in {
		out[i] = t
		out[i].Name = "o" + t.Name
	}
	return out, nil
}
func (echo) Close() error { return nil }

func allTypes() ([]backend.Info, []backend.Tensor) {
	ts := []backend.Tensor{
		{Name: "f32", DType: backend.Float32, Shape: []int64{2, 2}, Data: []float32{1.5, -2, 3e-7, 4e9}},
		{Name: "f16", DType: backend.Float16, Shape: []int64{3}, Data: []uint16{0x3c00, 0xc000, 0x7bff}},
		{Name: "i64", DType: backend.Int64, Shape: []int64{2}, Data: []int64{-1 << 62, 7}},
		{Name: "i32", DType: backend.Int32, Shape: []int64{1, 3}, Data: []int32{-5, 0, 1 << 30}},
		{Name: "u8", DType: backend.Uint8, Shape: []int64{4}, Data: []uint8{0, 1, 128, 255}},
		{Name: "b", DType: backend.Bool, Shape: []int64{3}, Data: []bool{true, false, true}},
	}
	info := make([]backend.Info, len(ts))
	for i, t := range ts {
		info[i] = backend.Info{Name: t.Name, DType: t.DType, Shape: t.Shape}
	}
	return info, ts
}

func TestGRPCRoundTripEveryDType(t *testing.T) {
	info, in := allTypes()
	s := NewServer("grpc-node", "2.0")
	s.Add("echo", echo{info: info, delay: 2 * time.Millisecond}, 4)
	addr, _ := serveGRPC(t, s)
	ctx := context.Background()
	n, err := DialNode(ctx, Config{Endpoint: addr, Model: "echo", Protocol: "grpc", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if !reflect.DeepEqual(n.Inputs(), info) || n.Outputs()[5].Name != "ob" {
		t.Fatalf("metadata: inputs %+v outputs %+v", n.Inputs(), n.Outputs())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, tm, err := n.RunTimed(ctx, in)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range in {
				if out[i].Name != "o"+in[i].Name || out[i].DType != in[i].DType || !reflect.DeepEqual(out[i].Shape, in[i].Shape) || !reflect.DeepEqual(out[i].Data, in[i].Data) {
					t.Errorf("tensor %s came back as %+v", in[i].Name, out[i])
				}
			}
			if tm.Infer < int64(2*time.Millisecond) || tm.Queue < 0 || tm.Input <= 0 || tm.Output <= 0 {
				t.Errorf("server timings %+v: want Infer >= 2ms (the model's delay) and the rest set", tm)
			}
		}()
	}
	wg.Wait()
	name, err := n.Name(ctx)
	if want := "grpc-node 2.0 at " + addr; name != want || err != nil {
		t.Errorf("Name = %q, %v; want %q", name, err, want)
	}
}

// TestGRPCTypedContents: a peer that sends typed contents instead of raw
// bytes is understood.
func TestGRPCTypedContents(t *testing.T) {
	info := []backend.Info{
		{Name: "f32", DType: backend.Float32, Shape: []int64{2}},
		{Name: "u8", DType: backend.Uint8, Shape: []int64{2}},
		{Name: "i64", DType: backend.Int64, Shape: []int64{1}},
	}
	s := NewServer("n", "1")
	s.Add("echo", echo{info: info}, 1)
	addr, _ := serveGRPC(t, s)
	n, err := DialGRPC(context.Background(), Config{Endpoint: addr, Model: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	resp, err := n.client.ModelInfer(context.Background(), &pb.ModelInferRequest{ModelName: "echo", Inputs: []*pb.ModelInferRequest_InferInputTensor{
		{Name: "f32", Datatype: "FP32", Shape: []int64{2}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2}}},
		{Name: "u8", Datatype: "UINT8", Shape: []int64{2}, Contents: &pb.InferTensorContents{UintContents: []uint32{3, 250}}},
		{Name: "i64", Datatype: "INT64", Shape: []int64{1}, Contents: &pb.InferTensorContents{Int64Contents: []int64{-9}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodePB(resp.Outputs, resp.RawOutputContents)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out[0].Data, []float32{1, 2}) || !reflect.DeepEqual(out[1].Data, []uint8{3, 250}) || !reflect.DeepEqual(out[2].Data, []int64{-9}) {
		t.Errorf("typed contents came back as %+v", out)
	}
	_, err = n.client.ModelInfer(context.Background(), &pb.ModelInferRequest{ModelName: "echo", Inputs: []*pb.ModelInferRequest_InferInputTensor{
		{Name: "f32", Datatype: "FP32", Shape: []int64{2}, Contents: &pb.InferTensorContents{Fp32Contents: []float32{1, 2}}},
		{Name: "u8", Datatype: "UINT8", Shape: []int64{2}, Contents: &pb.InferTensorContents{UintContents: []uint32{3, 256}}},
		{Name: "i64", Datatype: "INT64", Shape: []int64{1}, Contents: &pb.InferTensorContents{Int64Contents: []int64{-9}}},
	}})
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("UINT8 256: %v", err)
	}
}

func TestGRPCDialErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := NewServer("n", "1")
	s.Add("double", double{}, 1)
	addr, _ := serveGRPC(t, s)
	if _, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "nope"}); err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), `model "nope" is not served here`) {
		t.Errorf("unknown model: %v", err)
	}
	// Nothing listens there.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	if _, err := DialGRPC(ctx, Config{Endpoint: dead, Model: "double"}); err == nil || !strings.Contains(err.Error(), dead) || !strings.Contains(err.Error(), "is the server running") {
		t.Errorf("no server: %v", err)
	}
	for _, ep := range []string{"", "https://" + addr, addr + "/v2"} {
		if _, err := DialGRPC(ctx, Config{Endpoint: ep, Model: "double"}); err == nil {
			t.Errorf("endpoint %q accepted", ep)
		}
	}
	if _, err := DialNode(ctx, Config{Endpoint: addr, Model: "double", Protocol: "carrier-pigeon"}); err == nil || !strings.Contains(err.Error(), "http, grpc") {
		t.Errorf("unknown protocol: %v", err)
	}
	s.SetReady(false)
	if _, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "double"}); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Errorf("draining server: %v", err)
	}
}

// fake is a gRPC inference server whose answers a test writes.
type fake struct {
	pb.UnimplementedGRPCInferenceServiceServer
	meta  *pb.ModelMetadataResponse
	infer func(context.Context, *pb.ModelInferRequest) (*pb.ModelInferResponse, error)
}

func (fake) ServerReady(context.Context, *pb.ServerReadyRequest) (*pb.ServerReadyResponse, error) {
	return &pb.ServerReadyResponse{Ready: true}, nil
}
func (f fake) ModelMetadata(context.Context, *pb.ModelMetadataRequest) (*pb.ModelMetadataResponse, error) {
	return f.meta, nil
}
func (f fake) ModelInfer(ctx context.Context, r *pb.ModelInferRequest) (*pb.ModelInferResponse, error) {
	return f.infer(ctx, r)
}

func serveFake(t *testing.T, f fake) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pb.RegisterGRPCInferenceServiceServer(gs, f)
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	return ln.Addr().String()
}

var fp32Meta = &pb.ModelMetadataResponse{Name: "m",
	Inputs:  []*pb.ModelMetadataResponse_TensorMetadata{{Name: "x", Datatype: "FP32", Shape: []int64{-1}}},
	Outputs: []*pb.ModelMetadataResponse_TensorMetadata{{Name: "y", Datatype: "FP32", Shape: []int64{-1}}},
}

func TestGRPCMalformedAnswers(t *testing.T) {
	ctx := context.Background()
	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2}, Data: []float32{1, 2}}}
	out := func(name, dt string, shape []int64, raw ...[]byte) func(context.Context, *pb.ModelInferRequest) (*pb.ModelInferResponse, error) {
		return func(context.Context, *pb.ModelInferRequest) (*pb.ModelInferResponse, error) {
			return &pb.ModelInferResponse{Outputs: []*pb.ModelInferResponse_InferOutputTensor{{Name: name, Datatype: dt, Shape: shape}}, RawOutputContents: raw}, nil
		}
	}
	for _, c := range []struct {
		what  string
		infer func(context.Context, *pb.ModelInferRequest) (*pb.ModelInferResponse, error)
		want  string
	}{
		{"short data", out("y", "FP32", []int64{2}, make([]byte, 7)), "7 bytes for shape [2]"},
		{"no data", out("y", "FP32", []int64{2}), "has no data"},
		{"two raw entries for one tensor", out("y", "FP32", []int64{2}, make([]byte, 8), nil), "2 raw contents for 1 tensors"},
		{"unknown datatype", out("y", "BF16", []int64{2}, make([]byte, 4)), `datatype "BF16" is not one`},
		{"another output", out("z", "FP32", []int64{2}, make([]byte, 8)), "lacks output y"},
		{"an error status", func(context.Context, *pb.ModelInferRequest) (*pb.ModelInferResponse, error) {
			return nil, errors.New("the GPU caught fire")
		}, "the GPU caught fire"},
	} {
		addr := serveFake(t, fake{meta: fp32Meta, infer: c.infer})
		n, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = n.Run(ctx, x)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), addr) {
			t.Errorf("%s: error %v; want one with %q naming %s", c.what, err, c.want, addr)
		}
		n.Close()
	}
	// Metadata this client cannot use is refused at dial time.
	bad := &pb.ModelMetadataResponse{Name: "m", Inputs: []*pb.ModelMetadataResponse_TensorMetadata{{Name: "s", Datatype: "BYTES", Shape: []int64{1}}}}
	addr := serveFake(t, fake{meta: bad})
	if _, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "m"}); err == nil || !strings.Contains(err.Error(), `datatype "BYTES" is not one this suite's Open Inference Protocol client and server carry`) || !strings.Contains(err.Error(), addr) {
		t.Errorf("BYTES input: %v", err)
	}
}

func TestGRPCFaultsFailTheRequest(t *testing.T) {
	ctx := context.Background()
	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}

	// The model fails: the error says so and names the node.
	s := NewServer("n", "1")
	s.Add("double", broken{}, 1)
	addr, _ := serveGRPC(t, s)
	n, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	_, err = n.Run(ctx, x)
	if err == nil || !strings.Contains(err.Error(), "inference failed: engine out of memory") || !strings.Contains(err.Error(), addr) {
		t.Errorf("failed inference: %v", err)
	}
	// A tensor the model does not take is refused before it runs.
	_, err = n.Run(ctx, []backend.Tensor{{Name: "q", DType: backend.Int64, Shape: []int64{1}, Data: []int64{1}}})
	if err == nil || !strings.Contains(err.Error(), "InvalidArgument") || !strings.Contains(err.Error(), `model double has no input "q" (its inputs: x FP32 [N,3])`) {
		t.Errorf("wrong input: %v", err)
	}

	// A stalled server: the request ends at the deadline.
	slow := NewServer("n", "1")
	slow.Add("double", double{delay: time.Hour}, 1)
	addr, _ = serveGRPC(t, slow)
	n, err = DialGRPC(ctx, Config{Endpoint: addr, Model: "double", Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	start := time.Now()
	_, err = n.Run(ctx, x)
	if err == nil || !strings.Contains(err.Error(), "DeadlineExceeded") || !strings.Contains(err.Error(), addr) {
		t.Errorf("stalled server: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stalled server: the request took %v with a 200ms deadline", d)
	}

	// A server that dies with requests in flight: they fail at once.
	dying := NewServer("n", "1")
	dying.Add("double", double{delay: time.Hour}, 4)
	addr, gs := serveGRPC(t, dying)
	n, err = DialGRPC(ctx, Config{Endpoint: addr, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	errs := make(chan error, 3)
	for range 3 {
		go func() { _, err := n.Run(ctx, x); errs <- err }()
	}
	time.Sleep(100 * time.Millisecond)
	gs.Stop()
	for range 3 {
		select {
		case err := <-errs:
			if err == nil || !strings.Contains(err.Error(), addr) {
				t.Errorf("request in flight when the server died: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a request in flight when the server died hangs")
		}
	}
	// And later ones fail too, without hanging.
	if _, err := n.Run(ctx, x); err == nil || !strings.Contains(err.Error(), addr) {
		t.Errorf("request to a dead server: %v", err)
	}
}

func TestGRPCShutdownDrains(t *testing.T) {
	ctx := context.Background()
	s := NewServer("n", "1")
	s.Add("double", double{delay: 300 * time.Millisecond}, 4)
	addr, gs := serveGRPC(t, s)
	n, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}
	errs := make(chan error, 3)
	for range 3 {
		go func() { _, err := n.Run(ctx, x); errs <- err }()
	}
	time.Sleep(100 * time.Millisecond)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.ShutdownGRPC(sctx, gs); err != nil {
		t.Errorf("ShutdownGRPC: %v", err)
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("a request in flight at shutdown failed: %v", err)
		}
	}
	// A drain bounded shorter than the requests stops the server anyway.
	s2 := NewServer("n", "1")
	s2.Add("double", double{delay: time.Hour}, 1)
	addr, gs = serveGRPC(t, s2)
	n2, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer n2.Close()
	go n2.Run(ctx, x)
	time.Sleep(100 * time.Millisecond)
	short, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	if err := s2.ShutdownGRPC(short, gs); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("bounded drain: %v", err)
	}
}

func TestGRPCPoolNetworkName(t *testing.T) {
	ctx := context.Background()
	var eps []string
	for i := range 2 {
		s := NewServer(fmt.Sprintf("node%d", i), "1.0")
		s.Add("double", double{}, 1)
		addr, _ := serveGRPC(t, s)
		eps = append(eps, addr)
	}
	p, err := DialPool(ctx, eps, Config{Model: "double", Protocol: "grpc"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	name, err := p.Name(ctx)
	if want := "Network SUT: node0 1.0 at " + eps[0] + "; node1 1.0 at " + eps[1]; name != want || err != nil {
		t.Errorf("Name = %q, %v; want %q", name, err, want)
	}
	for i := range 4 {
		out, _, err := p.RunTimed(ctx, []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, float32(i)}}})
		if err != nil {
			t.Fatal(err)
		}
		if y := out[0].Data.([]float32); y[2] != 2*float32(i) {
			t.Errorf("y = %v", y)
		}
	}
	// A node serving another contract is refused at dial time.
	other := NewServer("odd", "1")
	other.Add("double", &NullSession{In: []backend.Info{{Name: "q", DType: backend.Int64, Shape: []int64{1}}}}, 1)
	odd, _ := serveGRPC(t, other)
	if _, err := DialPool(ctx, []string{eps[0], odd}, Config{Model: "double", Protocol: "grpc"}); err == nil || !strings.Contains(err.Error(), "different inputs or outputs") {
		t.Errorf("mismatched nodes: %v", err)
	}
}

// TestAliasBytes: aligned raw bytes become the tensor's data without a
// copy; misaligned ones and BOOL are copied, with the same values.
func TestAliasBytes(t *testing.T) {
	buf := make([]byte, 17)
	for i := range buf {
		buf[i] = byte(i)
	}
	aligned, err := aliasBytes("x", backend.Float32, []int64{4}, buf[:16])
	if err != nil {
		t.Fatal(err)
	}
	odd, err := aliasBytes("x", backend.Float32, []int64{4}, buf[1:17])
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fromBytes("x", backend.Float32, []int64{4}, buf[:16])
	if !reflect.DeepEqual(aligned.Data, want.Data) {
		t.Errorf("aligned %v, want %v", aligned.Data, want.Data)
	}
	wantOdd, _ := fromBytes("x", backend.Float32, []int64{4}, buf[1:17])
	if !reflect.DeepEqual(odd.Data, wantOdd.Data) {
		t.Errorf("misaligned %v, want %v", odd.Data, wantOdd.Data)
	}
	buf[0] = 0xff // the aligned tensor shares buf, the misaligned one does not
	if aligned.Data.([]float32)[0] == want.Data.([]float32)[0] || odd.Data.([]float32)[0] != wantOdd.Data.([]float32)[0] {
		t.Errorf("aligned data is not buf, or misaligned data is")
	}
	b, err := aliasBytes("b", backend.Bool, []int64{2}, []byte{0, 7})
	if err != nil || !reflect.DeepEqual(b.Data, []bool{false, true}) {
		t.Errorf("BOOL: %v, %v", b.Data, err)
	}
	if _, err := aliasBytes("x", backend.Float32, []int64{3}, buf[:16]); err == nil {
		t.Error("16 bytes for 3 float32: no error")
	}
}

func TestTieredPool(t *testing.T) {
	p := &tieredPool{}
	for _, c := range []struct{ n, cap int }{{0, 256}, {1, 256}, {256, 256}, {257, 512}, {602112, 1 << 20}, {1 << 26, 1 << 26}, {1<<26 + 1, 1<<26 + 1}} {
		b := p.Get(c.n)
		if len(*b) != c.n || cap(*b) != c.cap {
			t.Errorf("Get(%d): len %d cap %d, want cap %d", c.n, len(*b), cap(*b), c.cap)
		}
		p.Put(b)
	}
	// A buffer of a capacity Get does not make is not pooled.
	odd := make([]byte, 300)
	p.Put(&odd)
	if b := p.Get(300); cap(*b) != 512 {
		t.Errorf("Get(300) after Put of a 300-byte buffer: cap %d", cap(*b))
	}
}

// TestGRPCQueueAndHealth: requests beyond the model's slots wait, and the
// wait comes back as queue time; one that times out while queued frees
// nothing it did not take; the health RPCs answer as REST's do.
func TestGRPCQueueAndHealth(t *testing.T) {
	ctx := context.Background()
	s := NewServer("n", "1")
	s.Add("double", double{delay: 300 * time.Millisecond}, 1)
	addr, _ := serveGRPC(t, s)
	n, err := DialGRPC(ctx, Config{Endpoint: addr, Model: "double", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}
	tms := make(chan Timings, 2)
	for range 2 {
		go func() {
			_, tm, err := n.RunTimed(ctx, x)
			if err != nil {
				t.Error(err)
			}
			tms <- tm
		}()
	}
	a, b := <-tms, <-tms
	// (The second waits for most of the first's 300 ms, however late it
	// arrives within the first 250.)
	if q := max(a.Queue, b.Queue); q < int64(50*time.Millisecond) || min(a.Infer, b.Infer) < int64(300*time.Millisecond) {
		t.Errorf("two requests on one slot: timings %+v and %+v; want one queued >= 50ms, both Infer >= 300ms", a, b)
	}
	// One request holds the slot; another gives up while queued.
	hold := make(chan error, 1)
	go func() { _, err := n.Run(ctx, x); hold <- err }()
	time.Sleep(30 * time.Millisecond)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := n.Run(short, x); err == nil || !strings.Contains(err.Error(), "DeadlineExceeded") {
		t.Errorf("queued past its deadline: %v", err)
	}
	if err := <-hold; err != nil {
		t.Error(err)
	}
	if _, err := n.Run(ctx, x); err != nil {
		t.Errorf("after a queued request gave up, the slot is not free: %v", err)
	}

	live, err := n.client.ServerLive(ctx, &pb.ServerLiveRequest{})
	if err != nil || !live.GetLive() {
		t.Errorf("ServerLive: %v, %v", live, err)
	}
	mr, err := n.client.ModelReady(ctx, &pb.ModelReadyRequest{Name: "double"})
	if err != nil || !mr.GetReady() {
		t.Errorf("ModelReady: %v, %v", mr, err)
	}
	if _, err := n.client.ModelReady(ctx, &pb.ModelReadyRequest{Name: "double", Version: "2"}); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("ModelReady of version 2: %v", err)
	}
	s.SetReady(false)
	if r, err := n.client.ServerReady(ctx, &pb.ServerReadyRequest{}); err != nil || r.GetReady() {
		t.Errorf("ServerReady while draining: %v, %v", r, err)
	}
	if mr, err := n.client.ModelReady(ctx, &pb.ModelReadyRequest{Name: "double"}); err != nil || mr.GetReady() {
		t.Errorf("ModelReady while draining: %v, %v", mr, err)
	}
}
