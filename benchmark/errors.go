package benchmark

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// ErrUsage marks an error caused by how a benchmark was asked to run (a
// flag's value, a missing required flag) rather than by the model, the
// data or the machine; the mlperf command exits with status 2 on it.
// Test with errors.Is.
var ErrUsage = errors.New("usage")

// usageError prints as its message alone and matches ErrUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

// UsageError returns an error formatted as fmt.Sprintf does that matches
// ErrUsage.
func UsageError(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// ParseFlags parses args into fs for a command named "mlperf " +
// fs.Name(): -h prints the flags on stdout and returns flag.ErrHelp; a flag
// error or a positional argument is a UsageError.
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintf(stdout, "usage: mlperf %s [flags]\n", fs.Name())
			fs.PrintDefaults()
			return flag.ErrHelp
		}
		return UsageError("%v (see mlperf %s -h)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return UsageError("unexpected argument %q (see mlperf %s -h)", fs.Arg(0), fs.Name())
	}
	return nil
}
