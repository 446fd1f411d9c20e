// Command clientbench writes what scripts/client-bench.sh sends: for the ResNet50 request
// (input_tensor:0, 1×3×224×224 float32, 602,112 bytes) and a 64-byte one
// (x, 1×16 float32, served by small.onnx), the KServe v2 REST body (JSON
// header + binary tensor data, as mlperf's client sends it), the JSON
// header's length, and the gRPC ModelInferRequest in protobuf binary (for
// ghz -B). Run: go run ./cmd/clientbench -o DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/remote/kserve/pb"
)

func main() {
	out := flag.String("o", "", "output folder")
	flag.Parse()
	if *out == "" {
		log.Fatal("want -o DIR")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	// small.onnx: x [N,16] float32 → y = argmax over the 16 (int64 [N]).
	g := onnx.NewGraph(onnx.Config{Name: "small", Opset: 13})
	x := g.Input("x", onnx.Float, onnx.Sym("N"), onnx.Fix(16))
	am := g.ArgMax(x, 1, false)
	g.Node("Identity", []string{am}, []string{"y"})
	g.Output("y", onnx.Int64, onnx.Sym("N"))
	if err := g.Err(); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(filepath.Join(*out, "small.onnx"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := g.WriteTo(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	for _, r := range []struct {
		name, input string
		shape       []int64
		outputs     []string
	}{
		{"resnet50", "input_tensor:0", []int64{1, 3, 224, 224}, []string{"ArgMax:0", "softmax_tensor:0"}},
		{"small", "x", []int64{1, 16}, []string{"y"}},
	} {
		n := int64(4)
		for _, d := range r.shape {
			n *= d
		}
		js := fmt.Sprintf(`{"inputs":[{"name":%q,"shape":%s,"datatype":"FP32","parameters":{"binary_data_size":%d}}],"outputs":[`, r.input, string(kserve.AppendShape(nil, r.shape)), n)
		for i, o := range r.outputs {
			if i > 0 {
				js += ","
			}
			js += fmt.Sprintf(`{"name":%q,"parameters":{"binary_data":true}}`, o)
		}
		js += "]}"
		body := append([]byte(js), make([]byte, n)...)
		write(*out, r.name+".body", body)
		write(*out, r.name+".jsonlen", []byte(strconv.Itoa(len(js))))
		req := &pb.ModelInferRequest{ModelName: "resnet50", Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: r.input, Datatype: "FP32", Shape: r.shape}},
			RawInputContents: [][]byte{make([]byte, n)}}
		for _, o := range r.outputs {
			req.Outputs = append(req.Outputs, &pb.ModelInferRequest_InferRequestedOutputTensor{Name: o})
		}
		b, err := proto.Marshal(req)
		if err != nil {
			log.Fatal(err)
		}
		write(*out, r.name+".grpc.bin", b)
	}
}

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		log.Fatal(err)
	}
}
