package serve_test

import (
	"bytes"
	"context"
	"github.com/mlperf-go/inference/benchmark/spec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/loadgen"
	_ "github.com/mlperf-go/inference/models/bert"
	_ "github.com/mlperf-go/inference/models/retinanet"
	_ "github.com/mlperf-go/inference/models/unet3d"
	_ "github.com/mlperf-go/inference/models/yolo"
	"github.com/mlperf-go/inference/serve"
)

// TestTensorBenchmarksOverKServeMatchLocal: bert, retinanet, unet3d and
// yolo (resnet50 has its own two-node test) score the same through an `mlperf
// serve` node, over REST and over gRPC, as locally on the same synthetic
// model and data.
func TestTensorBenchmarksOverKServeMatchLocal(t *testing.T) {
	orttest.Need(t)
	t.Setenv("MLPERF_CACHE_DIR", filepath.Join(os.TempDir(), "mlperf-go-test-cache"))
	for _, name := range []string{"bert", "retinanet", "unet3d", "yolo"} {
		t.Run(name, func(t *testing.T) {
			b, ok := spec.Lookup(name)
			if !ok {
				t.Fatalf("%s is not registered", name)
			}
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			addrc := make(chan string, 1)
			go func() {
				err := serve.Main(ctx, []string{name, "--listen", "127.0.0.1:0", "--model", "synthetic:tiny", "--threads", "1", "--name", "node-" + name},
					&addrWriter{c: addrc}, &bytes.Buffer{})
				if err != nil {
					addrc <- "error: " + err.Error()
				}
			}()
			addr := <-addrc
			if strings.HasPrefix(addr, "error: ") {
				t.Fatal(addr)
			}
			var lastErr string // the last run's stderr
			run := func(o benchmark.Options) string {
				o.Scenario, o.Mode, o.Data, o.Count, o.Out = loadgen.Offline, loadgen.AccuracyOnly, "synthetic", 4, t.TempDir()
				o.Extra = spec.Extra{} // the flags' defaults, as the CLI fills them
				for _, op := range b.Options {
					if !op.Bool {
						o.Extra[op.Name] = op.Default
					}
				}
				var stdout, stderr bytes.Buffer
				if _, err := benchmark.Run(ctx, b, o, &stdout, &stderr); err != nil {
					t.Fatalf("%v\n%s", err, stderr.String())
				}
				lastErr = stderr.String()
				acc, err := os.ReadFile(filepath.Join(o.Out, "accuracy.txt"))
				if err != nil {
					t.Fatal(err)
				}
				return string(acc)
			}
			local := run(benchmark.Options{Model: "synthetic:tiny", Backend: "cpu", Threads: 1})
			for _, p := range []string{"http", "grpc"} {
				if remote := run(benchmark.Options{Backend: "kserve", Protocol: p, Endpoints: []string{addr}}); remote != local {
					t.Errorf("over %s: accuracy %q, locally %q", p, remote, local)
				}
				// unet3d's sliding window and yolo's NMS stay on this node:
				// the run says it is not a conformant Network division run.
				want := name == "unet3d" || name == "yolo"
				if warned := strings.Contains(lastErr, "not a conformant Network division run"); warned != want {
					t.Errorf("over %s: non-conformance warning %v, want %v:\n%s", p, warned, want, lastErr)
				}
			}
		})
	}
}
