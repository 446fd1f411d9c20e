package serve

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/remote/kserve"
)

// BenchmarkNullRoundTrip measures one inference round trip against a null
// node on loopback with a ResNet50-sized input (3×224×224 float32) and
// with a small one: through kserve.Session (the path `--backend kserve`
// takes) and through a plain net/http loop posting the same bytes, to show
// what the client costs over HTTP alone. 8 goroutines per core send
// (requests in flight), so ns/op is the inverse of throughput; cpu-us/op
// is the process's CPU time (client and server) per round trip, steadier
// than ns/op on a shared machine. Run with
// `go test -run '^$' -bench NullRoundTrip -cpu 2 ./serve`.
func BenchmarkNullRoundTrip(b *testing.B) {
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
		client, err := kserve.Dial(ctx, kserve.Config{Endpoint: addr, Model: "m"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(size.name+"/kserve", func(b *testing.B) {
			b.SetBytes(n * 4)
			b.SetParallelism(8) // 8 per core: requests in flight, as a loaded SUT has
			c0 := cpuTime()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := client.Run(ctx, in); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(cpuTime()-c0)/1e3/float64(b.N), "cpu-us/op")
		})
		// The same request bytes through a plain client loop.
		req := `{"inputs":[{"name":"x","shape":` + string(kserve.AppendShape(nil, size.shape)) + `,"datatype":"FP32","parameters":{"binary_data_size":` + strconv.FormatInt(n*4, 10) + `}}],"outputs":[{"name":"ArgMax:0","parameters":{"binary_data":true}}]}`
		body := append([]byte(req), make([]byte, n*4)...)
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
		b.Run(size.name+"/plain-http", func(b *testing.B) {
			b.SetBytes(n * 4)
			b.SetParallelism(8) // 8 per core: requests in flight, as a loaded SUT has
			c0 := cpuTime()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/v2/models/m/infer", bytes.NewReader(body))
					r.Header.Set(kserve.HeaderLength, strconv.Itoa(len(req)))
					resp, err := hc.Do(r)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
			b.ReportMetric(float64(cpuTime()-c0)/1e3/float64(b.N), "cpu-us/op")
		})
		stop()
	}
}

// nullModel sends each sample as one small request to a kserve session.
type nullModel struct {
	sess *kserve.Session
	in   []backend.Tensor
}

func (m nullModel) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	for range idx {
		if _, err := m.sess.Run(ctx, m.in); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkServerScenarioNull runs the loadgen's Server scenario (resnet50's
// settings: p99 within 15 ms) for 2 s at fixed target QPS against a null
// node on loopback, one small tensor (16 float32) per query, through the
// harness pool (32 workers) and kserve.Session: the LoadGen node's whole
// path of `--backend kserve` less the data set. It reports the completed
// queries/s, the p50 and p99 latency, valid=1 for a VALID run and the p99
// issue lag (IssueQuery call − scheduled time). Run with
// `go test -run '^$' -bench ServerScenarioNull -benchtime 1x -cpu 2 ./serve`.
func BenchmarkServerScenarioNull(b *testing.B) {
	sess := &kserve.NullSession{
		In:  []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 16}}},
		Out: []backend.Info{{Name: "y", DType: backend.Int64, Shape: []int64{-1}}},
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrc := make(chan string, 1)
	go Serve(ctx, Config{Listen: "127.0.0.1:0", Name: "null", Slots: 64, Null: true}, "m", sess, func(a string) { addrc <- a })
	client, err := kserve.Dial(ctx, kserve.Config{Endpoint: <-addrc, Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	m := nullModel{client, []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 16}, Data: make([]float32, 16)}}}
	for _, qps := range []float64{1000, 2000, 4000, 8000, 16000} {
		b.Run(strconv.Itoa(int(qps))+"qps", func(b *testing.B) {
			for range b.N {
				s, err := loadgen.LoadConfigs("resnet50", loadgen.Server, loadgen.PerformanceOnly, "", "", "")
				if err != nil {
					b.Fatal(err)
				}
				s.ServerTargetQPS, s.MinDurationMs, s.MinQueryCount = qps, 2000, 100
				sut, closeSUT, err := harness.ForScenario("Server", m, harness.PoolConfig{Batch: 1, Workers: 32})
				if err != nil {
					b.Fatal(err)
				}
				logs := loadgen.DefaultLogSettings()
				logs.OutDir = b.TempDir()
				res, err := loadgen.Run(ctx, sut, &loadgentest.MemQSL{Total: 1024, Performance: 1024}, s, logs)
				closeSUT()
				if err != nil {
					b.Fatal(err)
				}
				valid := 0.0
				if res.Valid {
					valid = 1
				}
				b.ReportMetric(res.CompletedPerSec, "completed/s")
				b.ReportMetric(float64(res.Latency.Percentiles[0])/1e6, "p50-ms")
				b.ReportMetric(float64(res.Latency.Percentiles[4])/1e6, "p99-ms")
				b.ReportMetric(valid, "valid")
				b.ReportMetric(float64(res.IssueLag.Percentiles[4])/1e3, "lag-p99-us")
			}
		})
	}
}

// BenchmarkNullRoundTripH2C compares HTTP/1.1 with unencrypted HTTP/2
// (h2c, one multiplexed connection) for the small round trip, against the
// same null node serving both: the plain net/http loop over each, and
// kserve.Session over h2c (through Config.Client). cpu-us/op is the
// process's CPU time per round trip. Run with
// `go test -run '^$' -bench NullRoundTripH2C -cpu 2 ./serve`.
func BenchmarkNullRoundTripH2C(b *testing.B) {
	srv := kserve.NewServer("null", "1")
	srv.Add("m", &kserve.NullSession{
		In:  []backend.Info{{Name: "x", DType: backend.Float32, Shape: []int64{-1, 16}}},
		Out: []backend.Info{{Name: "y", DType: backend.Int64, Shape: []int64{-1}}},
	}, 64)
	var both http.Protocols
	both.SetHTTP1(true)
	both.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv, Protocols: &both}
	go hs.Serve(ln)
	defer hs.Close()
	addr := ln.Addr().String()
	req := `{"inputs":[{"name":"x","shape":[1,16],"datatype":"FP32","parameters":{"binary_data_size":64}}],"outputs":[{"name":"y","parameters":{"binary_data":true}}]}`
	body := append([]byte(req), make([]byte, 64)...)
	transport := func(h2c bool) *http.Transport {
		t := &http.Transport{MaxIdleConnsPerHost: 64}
		if h2c {
			var p http.Protocols
			p.SetUnencryptedHTTP2(true)
			t.Protocols = &p
		}
		return t
	}
	for _, h2c := range []bool{false, true} {
		name := "http1"
		if h2c {
			name = "h2c"
		}
		hc := &http.Client{Transport: transport(h2c)}
		b.Run(name+"/plain-http", func(b *testing.B) {
			c0 := cpuTime()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/v2/models/m/infer", bytes.NewReader(body))
					r.Header.Set(kserve.HeaderLength, strconv.Itoa(len(req)))
					resp, err := hc.Do(r)
					if err != nil {
						b.Error(err)
						return
					}
					if resp.ProtoMajor != map[bool]int{false: 1, true: 2}[h2c] {
						b.Errorf("answered over %s", resp.Proto)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
			b.ReportMetric(float64(cpuTime()-c0)/1e3/float64(b.N), "cpu-us/op")
		})
		client, err := kserve.Dial(context.Background(), kserve.Config{Endpoint: addr, Model: "m", Client: &http.Client{Transport: transport(h2c)}})
		if err != nil {
			b.Fatal(err)
		}
		in := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 16}, Data: make([]float32, 16)}}
		b.Run(name+"/kserve", func(b *testing.B) {
			c0 := cpuTime()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := client.Run(context.Background(), in); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(cpuTime()-c0)/1e3/float64(b.N), "cpu-us/op")
		})
		client.Close()
	}
}
