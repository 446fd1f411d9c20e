// Package serve is `mlperf serve`: it makes this process an SUT node that
// serves a benchmark's model over the Open Inference Protocol (KServe v2
// REST and gRPC, on one port), or a decoder's text generation over
// OpenAI completions and chat completions, so that `mlperf run B --backend kserve|openai
// --endpoint ...` on another machine (the LoadGen node) can drive it: the
// Network division's shape.
package serve

import (
	"context"
	"errors"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/benchmark"
	"github.com/mlperf-go/inference/internal/sysmem"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/remote/openai"
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
	// MaxBatch is the most samples one request may carry (0: as many as
	// fit 64 MiB of the model's inputs, at most 32; see
	// kserve.DefaultMaxBatch). It bounds every request body.
	MaxBatch int
	// MaxConns bounds the connections open at once (0: DefaultMaxConns);
	// further ones wait in the listen backlog.
	MaxConns int
	// Notes, if set, gets one line stating the request limits once the
	// model is added.
	Notes io.Writer
	// Completions, if set, serves the /v1/ paths (OpenAI completions of a
	// decoder); the KServe paths stay for health and metadata.
	Completions http.Handler

	// ln, if set, is a listener already bound to Listen (Run binds it
	// before loading the model, so that a port in use is said at once).
	ln net.Listener
}

// Serve serves sess as model name over KServe v2 REST and gRPC on the
// same port (sess nil: no tensor model, only health and metadata) and
// cfg.Completions under /v1/ until ctx ends, then drains both gracefully
// within cfg.Drain. ready, if not nil, receives the bound address once
// listening.
func Serve(ctx context.Context, cfg Config, name string, sess backend.Session, ready func(addr string)) error {
	ln := cfg.ln
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Listen); err != nil {
			return listenError(cfg.Listen, err)
		}
	}
	srv := kserve.NewServer(cfg.Name, version())
	srv.MaxBatch = cfg.MaxBatch
	if cfg.Null && sess != nil {
		sess = &kserve.NullSession{In: sess.Inputs(), Out: sess.Outputs()}
	}
	if sess != nil {
		if err := srv.Add(name, sess, cfg.Slots); err != nil {
			ln.Close()
			return fmt.Errorf("serve: %w", err)
		}
		if b, m := srv.MemoryBudget(), int64(sysmem.Budget()); b > m {
			ln.Close()
			return fmt.Errorf("serve: %w: the memory for requests in flight, %d × --slots %d × (largest request %s + largest answer) = %s, is over the %s this process may use (half of the machine's memory); lower --max-batch (now %d samples per request) or --slots",
				backend.ErrTooLarge, kserve.MemoryFactor, max(cfg.Slots, 1), backend.FormatBytes(srv.RequestLimit(name)), backend.FormatBytes(b), backend.FormatBytes(m), srv.MaxBatchOf(name))
		}
		if cfg.Notes != nil {
			fmt.Fprintf(cfg.Notes, "requests to %s: at most %d samples and %d bytes each (--max-batch); request bodies and answers in memory at once: at most %d bytes (%d × --slots %d × (largest request + largest answer))\n",
				name, srv.MaxBatchOf(name), srv.RequestLimit(name), srv.MemoryBudget(), kserve.MemoryFactor, max(cfg.Slots, 1))
		}
	}
	var h http.Handler = srv
	if cfg.Completions != nil {
		mux := http.NewServeMux()
		mux.Handle("/", srv)
		mux.Handle("/v1/", cfg.Completions)
		h = mux
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: maxHeaderBytes}
	gs := srv.NewGRPCServer()
	// One port for both: the router hands HTTP/2 (gRPC) connections to gs
	// and the rest to hs.
	conns := cfg.MaxConns
	if conns <= 0 {
		conns = DefaultMaxConns
	}
	rt := newRouter(ln, 10*time.Second, conns, MaxGRPCConns)
	errc := make(chan error, 3)
	go func() { errc <- hs.Serve(rt.H1) }()
	go func() { errc <- gs.Serve(rt.H2) }()
	go func() { errc <- rt.serve() }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		rt.Close()
		hs.Close()
		gs.Stop()
		if err == nil {
			err = errors.New("the listener closed")
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	d := cfg.Drain
	if d <= 0 {
		d = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	// No new connections; then both servers drain at once, within d (each
	// closes its own side of the router).
	rt.stopAccepting()
	var herr, gerr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); herr = srv.Shutdown(sctx, hs) }()
	go func() { defer wg.Done(); gerr = srv.ShutdownGRPC(sctx, gs) }()
	wg.Wait()
	if err := errors.Join(herr, gerr); err != nil {
		return fmt.Errorf("serve: draining requests in flight: %w", err)
	}
	for range 3 {
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, grpc.ErrServerStopped) {
			return fmt.Errorf("serve: %w", err)
		}
	}
	return nil
}

// DefaultMaxConns is how many connections a node keeps open at once
// unless told otherwise: each idle one costs some 20 kB (a goroutine and
// its buffers), so these cost about 20 MiB.
const DefaultMaxConns = 1024

// MaxGRPCConns is how many gRPC (HTTP/2) connections a node keeps open at
// once: a LoadGen node's gRPC client multiplexes every call over one. With
// kserve.Server.GRPCStreams calls per connection, this bounds the gRPC
// messages in memory; a further one is closed at once.
const MaxGRPCConns = 2

// maxHeaderBytes bounds a REST request's header block (net/http's default
// is 1 MiB per connection).
const maxHeaderBytes = 64 << 10

// Node is what `mlperf serve` runs: a benchmark's model served on one
// port. Run checks it before anything is bound or loaded.
type Node struct {
	Config
	// Benchmark is the benchmark whose model is served.
	Benchmark *spec.Benchmark
	// Options are the model's: Model, Backend, Threads, Device, Batch
	// (decoders: sequences decoded together; 0: the benchmark's Server
	// default) and Extra (the benchmark's own settings). The scenario,
	// data and confs are the LoadGen node's, not read here.
	Options benchmark.Options
}

// Run serves n until ctx ends: it binds n.Listen first (a port in use is
// said before the model loads), then opens the model and serves it over
// KServe v2 REST and gRPC, or a decoder over /v1/completions and
// /v1/chat/completions. stdout gets the line naming the address once
// listening; stderr the model's build notes.
func Run(ctx context.Context, n Node, stdout, stderr io.Writer) error {
	b, cfg, o := n.Benchmark, n.Config, n.Options
	if err := CheckConfig(cfg); err != nil {
		return spec.UsageError("%v", err)
	}
	if err := backend.CheckThreads("--threads", o.Threads); err != nil {
		return spec.UsageError("serve: %v", err)
	}
	if o.Batch < 0 {
		return spec.UsageError("serve: --batch %d: want at least 1 (0: the benchmark's default)", o.Batch)
	}
	if o.Device < 0 {
		return spec.UsageError("serve: --device %d: want a GPU id from 0", o.Device)
	}
	// Bind first: a port in use is said before the model loads. Serve
	// closes the listener; an early return here closes it.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return listenError(cfg.Listen, err)
	}
	cfg.ln = ln
	defer ln.Close()
	// The benchmark's own settings that n leaves out take their defaults.
	extra := spec.Extra{}
	for _, op := range b.Options {
		extra[op.Name] = op.Default
	}
	for k, v := range o.Extra {
		extra[k] = v
	}
	o.Extra = extra
	if o.Batch == 0 {
		o.Batch = b.Batch.For(loadgen.Server, o.Backend)
	}
	// A serving node reads no data set: the LoadGen node sends the
	// samples. Checks of a data file pass on the synthetic one.
	o.Data = "synthetic"
	if err := benchmark.CheckOptions(b, &o); err != nil {
		return err
	}
	cache := benchmark.CacheDir()
	path, size, err := benchmark.ResolveModel(b, o.Model, cache, stderr)
	if err != nil {
		return err
	}
	if benchmark.Generates(b) && !cfg.Null {
		// A decoder: /v1/completions and /v1/chat/completions over the
		// local greedy decoder.
		gen, closeGen, err := benchmark.OpenGenerator(ctx, b, o, path, size, stdout, stderr)
		if err != nil {
			return err
		}
		defer closeGen()
		cfg.Completions = openai.NewHandler(b.Name, gen)
		return Serve(ctx, cfg, b.Name, nil, func(addr string) {
			fmt.Fprintf(stdout, "serving %s (%s, continuous batching of %d) over OpenAI completions at http://%s/v1/completions and /v1/chat/completions (text or token-id prompts, token ids back)\n", b.Name, path, o.Batch, addr)
		})
	}
	sess, err := benchmark.OpenLocal(&o, path, nil)
	if err != nil {
		return err
	}
	defer sess.Close()
	cfg.Notes = stdout
	return Serve(ctx, cfg, b.Name, sess, func(addr string) {
		fmt.Fprintf(stdout, "serving %s (%s) over KServe v2 REST at http://%s/v2/models/%s and KServe v2 gRPC at %s (same port)\n", b.Name, path, addr, b.Name, addr)
	})
}

// version is the module version, or the VCS revision of a development
// build.
func version() string { return versionOf(debug.ReadBuildInfo()) }

// versionOf is version for the build information bi (ok false: none).
func versionOf(bi *debug.BuildInfo, ok bool) string {
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
