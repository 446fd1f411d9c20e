package serve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/remote/kserve"
)

// BenchmarkNullRoundTrip measures one inference round trip against a null
// node on loopback with a ResNet50-sized input (3×224×224 float32) and
// with a small one: through kserve.Session (the path `--backend kserve`
// takes) and through a plain net/http loop posting the same bytes, to show
// what the client costs over HTTP alone. Run with
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
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := client.Run(ctx, in); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		// The same request bytes through a plain client loop.
		req := `{"inputs":[{"name":"x","shape":` + shapeJSON(size.shape) + `,"datatype":"FP32","parameters":{"binary_data_size":` + strconv.FormatInt(n*4, 10) + `}}],"outputs":[{"name":"ArgMax:0","parameters":{"binary_data":true}}]}`
		body := append([]byte(req), make([]byte, n*4)...)
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
		b.Run(size.name+"/plain-http", func(b *testing.B) {
			b.SetBytes(n * 4)
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
		})
		stop()
	}
}

func shapeJSON(s []int64) string {
	out := "["
	for i, d := range s {
		if i > 0 {
			out += ","
		}
		out += strconv.FormatInt(d, 10)
	}
	return out + "]"
}
