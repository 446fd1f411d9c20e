//go:build unix

package serve

import (
	"context"
	"syscall"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/remote/kserve"
)

// BenchmarkNullRoundTripGRPC compares the two transports of `--backend
// kserve` against one null node on loopback (REST and gRPC on the same
// port): one inference round trip with a ResNet50-sized input (3×224×224
// float32) and with a small one (16 float32), through the REST Session
// (--protocol http, a pool of keep-alive connections) and the gRPC node
// (--protocol grpc, one multiplexed HTTP/2 connection). 8 goroutines per
// core send, so ns/op is the inverse of throughput; cpu-us/op is the
// process's CPU time (client and server) per round trip, steadier than
// ns/op on a shared machine. Run with
// `go test -run '^$' -bench NullRoundTripGRPC -cpu 2 ./serve`.
func BenchmarkNullRoundTripGRPC(b *testing.B) {
	for _, size := range []struct {
		name  string
		shape []int64
	}{{"resnet50", []int64{1, 3, 224, 224}}, {"small", []int64{1, 16}}} {
		n := int64(1)
		for _, d := range size.shape {
			n *= d
		}
		in := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: size.shape, Data: make([]float32, n)}}
		sess := &kserve.NullSession{
			In:  []backend.Info{{Name: "x", DType: backend.Float32, Shape: append([]int64{-1}, size.shape[1:]...)}},
			Out: []backend.Info{{Name: "ArgMax:0", DType: backend.Int64, Shape: []int64{-1}}},
		}
		ctx, stop := context.WithCancel(context.Background())
		addrc := make(chan string, 1)
		go Serve(ctx, Config{Listen: "127.0.0.1:0", Name: "null", Slots: 64, Null: true}, "m", sess, func(a string) { addrc <- a })
		addr := <-addrc
		for _, proto := range []string{"http", "grpc"} {
			node, err := kserve.DialNode(ctx, kserve.Config{Endpoint: addr, Model: "m", Protocol: proto})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(size.name+"/"+proto, func(b *testing.B) {
				b.SetBytes(n * 4)
				b.SetParallelism(8) // 8 per core: requests in flight, as a loaded SUT has
				c0 := rusageCPU()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := node.Run(ctx, in); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(rusageCPU()-c0)/1e3/float64(b.N), "cpu-us/op")
			})
			node.Close()
		}
		stop()
	}
}

// rusageCPU is the process's user and system CPU time so far, in
// nanoseconds.
func rusageCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
