package benchmark

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mlperf-go/inference/benchmark/spec"
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
