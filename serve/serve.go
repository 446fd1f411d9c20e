// Package serve is `mlperf serve`: it makes this process an SUT node that
// serves a benchmark's model over the Open Inference Protocol (KServe v2
// REST), so that `mlperf run B --backend kserve --endpoint ...` on another
// machine (the LoadGen node) can drive it: the Network division's shape.
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/remote/kserve"
)

// Config is one serving node.
type Config struct {
	// Listen is the address to listen on (host:port; port 0 picks one).
	Listen string
	// Name is the node's name in server metadata (the QDL's Name reports
	// it).
	Name string
	// Slots is how many inferences run at once (< 1: 1).
	Slots int
	// Null serves a NullSession with the model's contract instead of the
	// model: answers at once, to measure the client and network path.
	Null bool
	// Drain bounds how long a shutdown waits for requests in flight.
	Drain time.Duration
}

// Serve serves sess as model name until ctx ends, then drains gracefully.
// ready, if not nil, receives the bound address once listening.
func Serve(ctx context.Context, cfg Config, name string, sess backend.Session, ready func(addr string)) error {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", cfg.Listen, err)
	}
	srv := kserve.NewServer(cfg.Name, version())
	if cfg.Null {
		sess = &kserve.NullSession{In: sess.Inputs(), Out: sess.Outputs()}
	}
	srv.Add(name, sess, cfg.Slots)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	d := cfg.Drain
	if d <= 0 {
		d = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := srv.Shutdown(sctx, hs); err != nil {
		return fmt.Errorf("serve: draining requests in flight: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// Main is `mlperf serve <benchmark> [flags]`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return benchmark.UsageError("serve: want a benchmark: mlperf serve <benchmark> --listen ADDR (benchmarks: %v)", benchmark.Names())
	}
	b, ok := benchmark.Lookup(args[0])
	if !ok {
		return benchmark.Unknown(args[0])
	}
	fs := flag.NewFlagSet("serve "+b.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	o := benchmark.Options{}
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:8000", "address to serve on (host:port)")
	fs.StringVar(&cfg.Name, "name", "mlperf-serve", "this node's name in the server metadata")
	fs.IntVar(&cfg.Slots, "slots", 1, "inferences run at once")
	sut := fs.String("sut", "model", "model: run the model; null: answer at once with zero outputs of the model's contract")
	fs.DurationVar(&cfg.Drain, "drain", 10*time.Second, "how long a shutdown waits for requests in flight")
	fs.StringVar(&o.Model, "model", "synthetic", "model file (.onnx), or synthetic / synthetic:SIZE")
	fs.StringVar(&o.Backend, "backend", "cpu", "execution provider: cpu, cuda or tensorrt")
	fs.IntVar(&o.Threads, "threads", 0, "inference engine threads (0: all cores)")
	fs.IntVar(&o.Device, "device", 0, "GPU id for cuda / tensorrt")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return benchmark.UsageError("serve: %v", err)
	}
	if fs.NArg() > 0 {
		return benchmark.UsageError("serve: unexpected argument %q", fs.Arg(0))
	}
	switch *sut {
	case "model", "null":
	default:
		return benchmark.UsageError("serve: --sut %q: want model or null", *sut)
	}
	cfg.Null = *sut == "null"
	path, _, err := benchmark.ResolveModel(b, o.Model, benchmark.CacheDir(), stderr)
	if err != nil {
		return err
	}
	env := &benchmark.Env{Options: o, Benchmark: b, Stderr: stderr}
	sess, err := env.OpenSession(path, nil)
	if err != nil {
		return err
	}
	defer sess.Close()
	return Serve(ctx, cfg, b.Name, sess, func(addr string) {
		fmt.Fprintf(stdout, "serving %s (%s) over KServe v2 REST at http://%s/v2/models/%s\n", b.Name, path, addr, b.Name)
	})
}

// version is the module version, or the VCS revision of a development
// build.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
	}
	return "devel"
}
