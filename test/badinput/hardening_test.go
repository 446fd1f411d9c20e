package badinput

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"net"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/check"
	"github.com/mlperf-go/inference/internal/argcheck"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/preprocess"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/report"
	"github.com/mlperf-go/inference/serve"
)

// hardeningCases are the cases added after the first table: progressive
// JPEG headers; --data, report and accuracy-log paths of the wrong kind;
// mlperf serve's flags and a port in use; kserve and openai endpoints;
// check and submission arguments.
func hardeningCases() []badCase {
	cs := []badCase{
		{name: "jpeg: progressive header declares 30000x30000 in a few bytes", want: "first progressive scan", run: func(t *testing.T) error {
			// SOI; SOF2 of 30000×30000, one component; SOS of its first DC
			// scan; a few bytes of data; EOI.
			b := []byte{0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x75, 0x30, 0x75, 0x30, 0x01, 0x01, 0x11, 0x00,
				0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0xFF, 0xD9}
			_, err := preprocess.Decode(b, preprocess.RGB)
			return err
		}},
		{name: "report: a file instead of a folder", want: "is a file, not a folder; give a run folder", run: func(t *testing.T) error {
			return report.Write(io.Discard, report.Options{Paths: []string{write(t, "notes.txt", []byte("x"))}})
		}},
		{name: "report: the summary log instead of its folder", want: "give the run folder that holds it", run: func(t *testing.T) error {
			return report.Write(io.Discard, report.Options{Paths: []string{write(t, "mlperf_log_summary.txt", []byte("x"))}})
		}},
		{name: "report: a path that does not exist", want: "does not exist", run: func(t *testing.T) error {
			return report.Write(io.Discard, report.Options{Paths: []string{filepath.Join(t.TempDir(), "results")}})
		}},
		{name: "report: an empty folder", want: "no mlperf_log_detail.txt", run: func(t *testing.T) error {
			return report.Write(io.Discard, report.Options{Paths: []string{t.TempDir()}})
		}},
		{name: "dataset: --data a file where the data set is a folder", want: "is a file; want the ImageNet folder", run: func(t *testing.T) error {
			d := &spec.Dataset{Name: "imagenet", DataWant: "the ImageNet folder"}
			return d.CheckData(write(t, "val_map.txt", []byte("a.JPEG 1\n")))
		}},
		{name: "dataset: --data that does not exist", want: "does not exist; want", run: func(t *testing.T) error {
			d := &spec.Dataset{Name: "squad", DataFile: true}
			return d.CheckData(filepath.Join(t.TempDir(), "dev-v1.1.json"))
		}},
		{name: "run options: --data a file where the benchmark reads a folder", want: "is a file; want", run: func(t *testing.T) error {
			if _, ok := spec.LookupDataset("badinput-folder"); !ok {
				spec.RegisterDataset(&spec.Dataset{Name: "badinput-folder"})
			}
			b := &spec.Benchmark{Name: "echo", Dataset: "badinput-folder", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
			o := benchmark.Options{Scenario: loadgen.Offline, Model: "m.onnx", Data: write(t, "data.txt", nil), Backend: "cpu"}
			return o.Validate(b)
		}},
	}
	// mlperf serve's flags (serve.CheckConfig), and a port in use.
	serveCfg := func(name, want string, mut func(*serve.Config)) badCase {
		return badCase{name: "serve: " + name, want: want, run: func(*testing.T) error {
			c := serve.Config{Listen: "127.0.0.1:8000", Name: "node", Slots: 1, Drain: time.Second}
			mut(&c)
			return serve.CheckConfig(c)
		}}
	}
	cs = append(cs,
		serveCfg("--listen bogus", "not host:port", func(c *serve.Config) { c.Listen = "bogus" }),
		serveCfg("--listen 8000", "write :8000", func(c *serve.Config) { c.Listen = "8000" }),
		serveCfg("--listen :99999", "outside 0 to 65535", func(c *serve.Config) { c.Listen = ":99999" }),
		serveCfg("--listen http://127.0.0.1:8000", "without the http:// scheme", func(c *serve.Config) { c.Listen = "http://127.0.0.1:8000" }),
		serveCfg("--listen with a path", "has no path", func(c *serve.Config) { c.Listen = "127.0.0.1:8000/v2" }),
		serveCfg("--listen empty", "empty", func(c *serve.Config) { c.Listen = "" }),
		serveCfg("--slots 0", "want at least 1", func(c *serve.Config) { c.Slots = 0 }),
		serveCfg("--slots -1", "want at least 1", func(c *serve.Config) { c.Slots = -1 }),
		serveCfg("--drain -1s", "cannot be negative", func(c *serve.Config) { c.Drain = -time.Second }),
		serveCfg("--slots 100000", "use at most", func(c *serve.Config) { c.Slots = 100000 }),
		serveCfg("--name empty", "--name is empty", func(c *serve.Config) { c.Name = "" }),
		badCase{name: "serve: port in use", want: "in use by another process", run: func(t *testing.T) error {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return nil
			}
			defer ln.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return serve.Serve(ctx, serve.Config{Listen: ln.Addr().String()}, "m", nil, nil)
		}},
		badCase{name: "serve: --listen on an address of another machine", want: "no network interface", run: func(t *testing.T) error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return serve.Serve(ctx, serve.Config{Listen: "192.0.2.1:0"}, "m", nil, nil)
		}},
		badCase{name: "serve: --drain 5 (no unit)", want: "needs a unit", run: func(*testing.T) error {
			d := argcheck.Duration{Name: "--drain", AllowZero: true}
			return d.Set("5")
		}},
	)
	// mlperf run --backend kserve: endpoints refused before anything is
	// loaded (benchmark.Options.Validate).
	bench := &spec.Benchmark{Name: "echo", ConfNames: []string{"resnet50"}, Scenarios: []loadgen.Scenario{loadgen.Offline}}
	remote := func(name, want string, mut func(*benchmark.Options)) badCase {
		return badCase{name: "run remote: " + name, want: want, run: func(*testing.T) error {
			o := benchmark.Options{Scenario: loadgen.Offline, Data: "synthetic", Backend: "kserve", Protocol: "grpc", Endpoints: []string{"127.0.0.1:8000"}}
			mut(&o)
			return o.Validate(bench)
		}}
	}
	cs = append(cs,
		remote("no --endpoint", "needs --endpoint", func(o *benchmark.Options) { o.Endpoints = nil }),
		remote("gRPC endpoint with a path", "no path", func(o *benchmark.Options) { o.Endpoints = []string{"127.0.0.1:8000/v2/models/resnet50"} }),
		remote("gRPC endpoint over https", "without TLS", func(o *benchmark.Options) { o.Endpoints = []string{"https://127.0.0.1:8000"} }),
		remote("gRPC endpoint without a port", "has no port", func(o *benchmark.Options) { o.Endpoints = []string{"node1"} }),
		remote("endpoints as a comma list", "repeat the flag", func(o *benchmark.Options) { o.Endpoints = []string{"a:1,b:2"} }),
		remote("REST endpoint with another scheme", "http(s) URL", func(o *benchmark.Options) { o.Protocol, o.Endpoints = "", []string{"ftp://a:1"} }),
		remote("--protocol without --backend kserve", "needs --backend kserve", func(o *benchmark.Options) { o.Backend, o.Endpoints = "cpu", nil }),
		remote("--protocol bogus", "unknown --protocol", func(o *benchmark.Options) { o.Protocol = "bogus" }),
		remote("--endpoint without a remote backend", "needs --backend kserve, openai or sglang", func(o *benchmark.Options) { o.Backend, o.Protocol = "cpu", "" }),
		remote("openai endpoint with the completions path", "give the server's base URL", func(o *benchmark.Options) {
			o.Backend, o.Protocol, o.Endpoints = "openai", "", []string{"http://127.0.0.1:8000/v1/completions"}
		}),
		remote("openai endpoints as a comma list", "one server's URL", func(o *benchmark.Options) {
			o.Backend, o.Protocol, o.Endpoints = "openai", "", []string{"a:1,b:2"}
		}),
		remote("sglang endpoint with the /generate path", "give the server's base URL http://127.0.0.1:30000", func(o *benchmark.Options) {
			o.Backend, o.Protocol, o.Endpoints = "sglang", "", []string{"http://127.0.0.1:30000/generate"}
		}),
		remote("--prompt-form with a local backend", "--prompt-form needs --backend openai or sglang", func(o *benchmark.Options) {
			o.Backend, o.Protocol, o.Endpoints, o.PromptForm = "cpu", "", nil, "ids"
		}),
		remote("--prompt-form bogus", `--prompt-form "tokens": want auto, ids, text`, func(o *benchmark.Options) {
			o.Backend, o.Protocol, o.PromptForm = "openai", "", "tokens"
		}),
		remote("more openai endpoints than a per-query record names", "256 --endpoint values: at most 255", func(o *benchmark.Options) {
			o.Backend, o.Protocol, o.Endpoints = "openai", "", nil
			for i := range 256 {
				o.Endpoints = append(o.Endpoints, fmt.Sprintf("127.0.0.1:%d", 1000+i))
			}
		}),
		badCase{name: "run remote: endpoint serving another model", want: "this node serves retinanet", run: func(t *testing.T) error {
			srv := kserve.NewServer("node", "v")
			srv.Add("retinanet", &kserve.NullSession{In: []backend.Info{{Name: "images", DType: backend.Float32, Shape: []int64{1, 3, 800, 800}}}}, 1)
			hs := httptest.NewServer(srv)
			defer hs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := kserve.Dial(ctx, kserve.Config{Endpoint: hs.URL, Model: "resnet50"})
			if err == nil {
				s.Close()
			}
			return err
		}},
		badCase{name: "run remote: unreachable endpoint", want: "is the server running", run: func(t *testing.T) error {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return nil
			}
			addr := ln.Addr().String()
			ln.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := kserve.DialGRPC(ctx, kserve.Config{Endpoint: addr, Model: "resnet50"})
			if err == nil {
				s.Close()
			}
			return err
		}},
	)
	// mlperf accuracy <benchmark> --log of the wrong kind.
	accLog := func(name, want string, path func(t *testing.T) string) badCase {
		return badCase{name: "accuracy --log: " + name, want: want, run: func(t *testing.T) error {
			_, err := benchmark.Accuracy(context.Background(), bench, &benchmark.AccuracyRequest{Log: path(t), Data: "synthetic"}, io.Discard)
			return err
		}}
	}
	cs = append(cs,
		accLog("empty file", "is empty (0 bytes)", func(t *testing.T) string { return write(t, "mlperf_log_accuracy.json", nil) }),
		accLog("a folder without the log", "is a folder without", func(t *testing.T) string { return t.TempDir() }),
	)
	// mlperf check with an empty folder (the command-line cases of check
	// and submission, a stray argument, odd --scenarios, --system-type,
	// --out a file, are cmd/mlperf's: TestSubmissionRefusesOddFlags,
	// TestLibraryCommandsAreWired).
	cs = append(cs,
		badCase{name: "check: an empty folder (no summary saying OK)", want: "no results under", run: func(t *testing.T) error {
			var out bytes.Buffer
			err := check.Run(t.TempDir(), check.Options{}, &out)
			if err != nil && strings.Contains(out.String(), "looks OK") {
				return nil // a contradictory summary counts as a failure
			}
			return err
		}},
		badCase{name: "report: a third folder", want: "give one folder, or two to compare", run: func(t *testing.T) error {
			return report.Write(io.Discard, report.Options{Paths: []string{t.TempDir(), t.TempDir(), t.TempDir()}})
		}},
	)
	return cs
}
