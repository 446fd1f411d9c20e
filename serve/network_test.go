package serve_test

import (
	"bytes"
	"context"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
	_ "github.com/mlperf-go/inference/models/resnet50"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/serve"
)

// TestResNet50OverTwoNodesMatchesLocal runs resnet50 in accuracy mode once
// locally and once through two `mlperf serve` nodes (the same synthetic
// model, over REST and over gRPC) with this process as the LoadGen node,
// and checks that the accuracy logs and scores are the same and the SUT
// name is a Network SUT's.
func TestResNet50OverTwoNodesMatchesLocal(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(os.TempDir(), "mlperf-go-test-cache"))
	b, ok := spec.Lookup("resnet50")
	if !ok {
		t.Fatal("resnet50 is not registered")
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var eps []string
	for i := range 2 {
		addrc := make(chan string, 1)
		go func() {
			err := serve.Run(ctx, tinyNode(b, []string{"node-a", "node-b"}[i]),
				&addrWriter{c: addrc}, &bytes.Buffer{})
			if err != nil {
				addrc <- "error: " + err.Error()
			}
		}()
		a := <-addrc
		if strings.HasPrefix(a, "error: ") {
			t.Fatal(a)
		}
		eps = append(eps, a)
	}
	run := func(o benchmark.Options) (string, []byte) {
		o.Scenario, o.Mode, o.Data, o.Count, o.Out = loadgen.Offline, loadgen.AccuracyOnly, "synthetic", 16, t.TempDir()
		var stdout, stderr bytes.Buffer
		if _, err := benchmark.Run(ctx, b, o, &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		acc, err := os.ReadFile(filepath.Join(o.Out, "accuracy.txt"))
		if err != nil {
			t.Fatal(err)
		}
		detail, _ := os.ReadFile(filepath.Join(o.Out, "mlperf_log_detail.txt"))
		return string(acc), detail
	}
	local, _ := run(benchmark.Options{Model: "synthetic:tiny", Backend: "cpu", Threads: 1})
	remote, detail := run(benchmark.Options{Backend: "kserve", Endpoints: eps})
	if local != remote {
		t.Errorf("accuracy through two nodes %q, locally %q", remote, local)
	}
	if !bytes.Contains(detail, []byte(`Network SUT: node-a`)) || !bytes.Contains(detail, []byte(`; node-b`)) {
		t.Errorf("the detail log's sut_name does not name both nodes as a Network SUT")
	}
	// The same nodes over gRPC (the same port).
	if remote, detail := run(benchmark.Options{Backend: "kserve", Endpoints: eps, Protocol: "grpc"}); local != remote || !bytes.Contains(detail, []byte(`Network SUT: node-a`)) {
		t.Errorf("accuracy through two nodes over gRPC %q, locally %q (or no Network SUT name)", remote, local)
	}
	// Name makes its round trip when the loadgen asks, not before.
	if m := regexp.MustCompile(`"get_sut_name_duration_ns", "value": (\d+)`).FindSubmatch(detail); m == nil || string(m[1]) == "0" {
		t.Errorf("get_sut_name_duration_ns is %q: the Name round trip did not happen in Name", m)
	}
}

// tinyNode is `mlperf serve <b> --listen 127.0.0.1:0 --model synthetic:tiny
// --threads 1 --name name`.
func tinyNode(b *spec.Benchmark, name string) serve.Node {
	return serve.Node{
		Config:    serve.Config{Listen: "127.0.0.1:0", Name: name, Slots: 1, Drain: 10 * time.Second},
		Benchmark: b,
		Options:   benchmark.Options{Model: "synthetic:tiny", Backend: "cpu", Threads: 1},
	}
}

// addrWriter passes the address `serve` prints once listening.
type addrWriter struct{ c chan string }

func (w *addrWriter) Write(p []byte) (int, error) {
	s := string(p)
	if i := strings.Index(s, "http://"); i >= 0 {
		rest := s[i+len("http://"):]
		w.c <- rest[:strings.Index(rest, "/")]
	}
	return len(p), nil
}

// TestContractMismatchOverGRPC: a node serving "resnet50" with another
// model's inputs is refused at the start of the run with the benchmark's
// contract error, over gRPC as over REST.
func TestContractMismatchOverGRPC(t *testing.T) {
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(os.TempDir(), "mlperf-go-test-cache"))
	b, ok := spec.Lookup("resnet50")
	if !ok {
		t.Fatal("resnet50 is not registered")
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrc := make(chan string, 1)
	wrong := &kserve.NullSession{
		In:  []backend.Info{{Name: "images", DType: backend.Float32, Shape: []int64{-1, 3, 224, 224}}},
		Out: []backend.Info{{Name: "ArgMax:0", DType: backend.Int64, Shape: []int64{-1}}},
	}
	go serve.Serve(ctx, serve.Config{Listen: "127.0.0.1:0", Name: "odd"}, "resnet50", wrong, func(a string) { addrc <- a })
	addr := <-addrc
	for _, p := range []string{"http", "grpc"} {
		o := benchmark.Options{Backend: "kserve", Endpoints: []string{addr}, Protocol: p, Scenario: loadgen.Offline, Mode: loadgen.AccuracyOnly, Data: "synthetic", Count: 4, Out: t.TempDir()}
		var stdout, stderr bytes.Buffer
		_, err := benchmark.Run(ctx, b, o, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), `want exactly one input "input_tensor:0"`) || !strings.Contains(err.Error(), "images") || !strings.Contains(err.Error(), "resnet50 served at "+addr) {
			t.Errorf("%s: a node with another contract: %v", p, err)
		}
	}
}
