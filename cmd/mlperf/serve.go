package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/internal/argcheck"
	"github.com/mlperf-go/inference/remote/kserve"
	"github.com/mlperf-go/inference/serve"
)

// serveCmd is `mlperf serve <benchmark> [flags]`: the flags become a
// serve.Node, which serve.Run serves until Ctrl-C.
func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintf(stdout, "usage: mlperf serve <benchmark> [--listen HOST:PORT] [flags]\n\nbenchmarks: %s\n\nRun 'mlperf serve <benchmark> -h' for its flags.\n", strings.Join(spec.Names(), ", "))
		return flag.ErrHelp
	}
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return spec.UsageError("serve: want a benchmark: mlperf serve <benchmark> --listen ADDR (benchmarks: %s)", strings.Join(spec.Names(), ", "))
	}
	b, ok := spec.Lookup(args[0])
	if !ok {
		return spec.Unknown(args[0])
	}
	fs := flag.NewFlagSet("serve "+b.Name, flag.ContinueOnError)
	n := serve.Node{Benchmark: b}
	cfg, o := &n.Config, &n.Options
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:8000", "address to serve on (host:port), KServe v2 REST and gRPC both")
	fs.StringVar(&cfg.Name, "name", "mlperf-serve", "this node's name in the server metadata")
	fs.IntVar(&cfg.Slots, "slots", 1, "inferences run at once")
	fs.IntVar(&cfg.MaxBatch, "max-batch", 0, fmt.Sprintf("most samples one request may carry; bounds every request body (0: as many as fit 64 MiB of inputs, at most %d)", kserve.DefaultMaxBatchCap))
	fs.IntVar(&cfg.MaxConns, "max-conns", serve.DefaultMaxConns, "most client connections open at once (more wait to be accepted)")
	sut := fs.String("sut", "model", "model: run the model; null: answer at once with zero outputs of the model's contract")
	drain := &argcheck.Duration{Name: "--drain", AllowZero: true, D: 10 * time.Second}
	fs.Var(drain, "drain", "how long a shutdown waits for requests in flight (0: 10s)")
	fs.StringVar(&o.Model, "model", "synthetic", "model file (.onnx), or synthetic / synthetic:SIZE")
	fs.StringVar(&o.Backend, "backend", "cpu", "execution provider: cpu, cuda or tensorrt")
	fs.IntVar(&o.Threads, "threads", 0, "inference engine threads (0: all cores)")
	fs.IntVar(&o.Device, "device", 0, "GPU id for cuda / tensorrt")
	fs.IntVar(&o.Batch, "batch", 0, "decoders: sequences decoded together, continuous batching (0: the benchmark's default)")
	extra := map[string]*string{}
	for _, op := range b.Options {
		if !op.Bool {
			extra[op.Name] = fs.String(op.Name, op.Default, op.Usage)
		}
	}
	if err := parse(fs, args[1:], stdout); err != nil {
		return err
	}
	cfg.Drain = drain.D
	switch *sut {
	case "model", "null":
	default:
		return spec.UsageError("serve: --sut %q: want model or null", *sut)
	}
	cfg.Null = *sut == "null"
	o.Extra = spec.Extra{}
	for k, v := range extra {
		o.Extra[k] = *v
	}
	return serve.Run(ctx, n, stdout, stderr)
}
