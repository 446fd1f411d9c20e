package kserve

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/mlperf-go/inference/backend"
)

// FuzzRESTAnswer feeds arbitrary bytes (up to 256 KiB) to the REST
// client's answer reader and decoder: it must never panic, never return a
// body over its bound, and every tensor it decodes must hold as many
// elements as its shape says. Run with
// `go test -run '^$' -fuzz FuzzRESTAnswer ./remote/kserve`.
func FuzzRESTAnswer(f *testing.F) {
	f.Add([]byte(goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n")))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 500 oops\r\n\r\n{\"error\":\"x\"}"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: 99999\r\nContent-Length: 4\r\n\r\n{}xx"))
	f.Add([]byte(`HTTP/1.1 200 OK` + "\r\nContent-Length: 95\r\n\r\n" + `{"outputs":[{"name":"y","shape":[1000000000,3],"datatype":"FP32","data":[1,2,3]}],"model_name":"m"}`))
	s := &Session{base: "http://fuzz", outputs: []backend.Info{{Name: "y", DType: backend.Float32, Shape: []int64{-1, 3}}}, meta: ModelMeta{Name: "m"}}
	const errBody = 1 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		for _, bufSize := range []int{16, restBufSize} {
			limit := func(binary bool) int64 { return answerLimit(s.outputs, 2, binary) }
			a, err := readAnswer(bufio.NewReaderSize(bytes.NewReader(data), bufSize), limit, errBody)
			if err != nil {
				continue
			}
			if bound := max(limit(a.jsonLen >= 0), errBody); int64(len(a.body)) > bound {
				t.Fatalf("a body of %d bytes over its bound %d", len(a.body), bound)
			}
			out, _, err := s.decodeAnswer(a.status, a.jsonLen, a.body)
			if err != nil {
				continue
			}
			for _, o := range out {
				if n := elements(o.Shape); n < 0 || n*int64(o.DType.Size()) != int64(len(mustRaw(t, o))) {
					t.Fatalf("tensor %s of shape %v holds %d bytes", o.Name, o.Shape, len(mustRaw(t, o)))
				}
			}
		}
	})
}

func mustRaw(t *testing.T, x backend.Tensor) []byte {
	b, err := rawBytes(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
