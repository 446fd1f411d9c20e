package kserve

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
)

// zeroInputs are zero tensors of a model's inputs at batch 1.
func zeroInputs(infos []backend.Info) []backend.Tensor {
	in := make([]backend.Tensor, len(infos))
	for i, info := range infos {
		shape := append([]int64(nil), info.Shape...)
		for k, d := range shape {
			if d < 0 {
				shape[k] = 1
			}
		}
		t, _ := fromBytes(info.Name, info.DType, shape, make([]byte, elements(shape)*int64(info.DType.Size())))
		in[i] = t
	}
	return in
}

// runLoad sends b.N requests from conns goroutines and reports the
// client's CPU per request (cpu-us/op: this process's user + system time,
// which is the client's alone when the server runs in another process;
// user-us/op and sys-us/op split it) and the requests per second.
func runLoad(b *testing.B, n Node, conns int) {
	in := zeroInputs(n.Inputs())
	ctx := context.Background()
	if _, err := n.Run(ctx, in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	u0, s0 := cpuTimes()
	t0 := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if _, err := n.Run(ctx, in); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	u1, s1 := cpuTimes()
	b.ReportMetric(float64(u1-u0+s1-s0)/1e3/float64(b.N), "cpu-us/op")
	b.ReportMetric(float64(u1-u0)/1e3/float64(b.N), "user-us/op")
	b.ReportMetric(float64(s1-s0)/1e3/float64(b.N), "sys-us/op")
	b.ReportMetric(float64(b.N)/el.Seconds(), "req/s")
}

// BenchmarkClientCPU measures the KServe client alone against a server in
// another process: MLPERF_KSERVE_ENDPOINT (host:port of e.g. `mlperf
// serve resnet50 --sut null`; skipped when unset), MLPERF_KSERVE_MODEL
// (default resnet50), MLPERF_KSERVE_PROTOCOL (http or grpc) and
// MLPERF_KSERVE_CONNS requests in flight (default 16). Each request is
// zero tensors of the model's inputs at batch 1. scripts/client-bench.sh
// runs it beside wrk, hey and ghz against the same server.
func BenchmarkClientCPU(b *testing.B) {
	ep := os.Getenv("MLPERF_KSERVE_ENDPOINT")
	if ep == "" {
		b.Skip("set MLPERF_KSERVE_ENDPOINT to a running server's host:port (scripts/client-bench.sh does)")
	}
	model := os.Getenv("MLPERF_KSERVE_MODEL")
	if model == "" {
		model = "resnet50"
	}
	conns := 16
	if s := os.Getenv("MLPERF_KSERVE_CONNS"); s != "" {
		var err error
		if conns, err = strconv.Atoi(s); err != nil || conns < 1 {
			b.Fatalf("MLPERF_KSERVE_CONNS %q: want a count from 1", s)
		}
	}
	n, err := DialNode(context.Background(), Config{Endpoint: ep, Model: model, Protocol: os.Getenv("MLPERF_KSERVE_PROTOCOL"), MaxConns: conns})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	runLoad(b, n, conns)
}

// BenchmarkRESTClientInProcess is the REST client's path against an
// in-process null server, for allocations and a rough CPU figure when no
// server runs apart (cpu-us/op here is client and server together):
// ResNet50's request and a 64-byte one.
func BenchmarkRESTClientInProcess(b *testing.B) {
	for _, c := range []struct {
		name string
		in   []backend.Info
	}{
		{"resnet50", resnetLike().In},
		{"64B", []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 16}}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := NewServer("null", "1")
			if err := s.Add("m", &NullSession{In: c.in, Out: []backend.Info{{Name: "y", DType: backend.Int64, Shape: []int64{-1}}}}, 16); err != nil {
				b.Fatal(err)
			}
			hs := httptest.NewUnstartedServer(s)
			hs.Config.MaxHeaderBytes = 64 << 10
			hs.Start()
			defer hs.Close()
			_, port, _ := net.SplitHostPort(hs.Listener.Addr().String())
			sess, err := Dial(context.Background(), Config{Endpoint: "127.0.0.1:" + port, Model: "m", MaxConns: 16})
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			runLoad(b, sess, 16)
		})
	}
}
