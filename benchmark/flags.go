package benchmark

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/remote/kserve"
)

// ParseFlags parses args into fs for a command named "mlperf " +
// fs.Name(): -h prints the flags on stdout and returns flag.ErrHelp; a flag
// error or a positional argument is a spec.UsageError.
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "usage: mlperf %s [flags]\n", fs.Name())
			fs.PrintDefaults()
			return flag.ErrHelp
		}
		return spec.UsageError("%v (see mlperf %s -h)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return spec.UsageError("unexpected argument %q (see mlperf %s -h)", fs.Arg(0), fs.Name())
	}
	return nil
}

// RemoteFlags registers on fs the flags of a run on remote serving
// engines into o: --endpoint (repeatable), --prompt-form, --protocol,
// --served-model and --api-key-env. Every command that runs a benchmark
// (run, perf, submission, compliance) takes them.
func RemoteFlags(fs *flag.FlagSet, o *Options) {
	fs.Func("endpoint", "with --backend kserve|openai|sglang: a serving engine's host:port or URL (repeat for several: kserve nodes in turn, decoder replicas by fewest requests in flight)", func(v string) error { o.Endpoints = append(o.Endpoints, v); return nil })
	fs.StringVar(&o.PromptForm, "prompt-form", "", "with --backend openai|sglang: send prompts as token ids, as text, or auto (ids where every endpoint takes them, else text; \"\": auto)")
	fs.StringVar(&o.Protocol, "protocol", "", "with --backend kserve: the Open Inference Protocol transport, "+strings.Join(kserve.Protocols, " or ")+" (\"\": http, REST)")
	fs.StringVar(&o.ServedModel, "served-model", "", "the remote engine's name of the model (\"\": the benchmark's name)")
	fs.StringVar(&o.APIKeyEnv, "api-key-env", "", "environment variable holding a bearer token for the remote engine")
}
