// Command mlperf runs MLPerf Inference benchmarks: the load generator, the
// benchmarks' models and data sets, accuracy scoring and reports.
//
// Every subcommand lives in its own file and registers itself with handle
// in an init function, so that benchmarks add commands without touching
// this file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/mlperf-go/inference/benchmark/spec"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// handler runs one command. args are the arguments after the command
// path; results go to stdout, progress and notes to stderr.
type handler func(ctx context.Context, args []string, stdout, stderr io.Writer) error

type command struct {
	path    []string // e.g. ["run", "resnet50"] or ["loadgen"]
	summary string
	run     handler
}

var commands []command

// handle registers a command under path (for example "model build
// resnet50"). It must be called from init functions only.
func handle(path, summary string, run handler) {
	p := strings.Fields(path)
	for _, c := range commands {
		if strings.Join(c.path, " ") == path {
			panic("mlperf: command registered twice: " + path)
		}
	}
	commands = append(commands, command{path: p, summary: summary, run: run})
}

// errUsage marks an error caused by how the command was called (exit 2).
var errUsage = spec.ErrUsage

// usageError returns an error that prints as msg and exits with status 2.
func usageError(format string, a ...any) error { return spec.UsageError(format, a...) }

// lookup finds the command with the longest path that prefixes args.
func lookup(args []string) (*command, []string) {
	var best *command
	for i := range commands {
		c := &commands[i]
		if len(c.path) > len(args) || (best != nil && len(c.path) <= len(best.path)) {
			continue
		}
		match := true
		for j, w := range c.path {
			if args[j] != w {
				match = false
				break
			}
		}
		if match {
			best = c
		}
	}
	if best == nil {
		return nil, nil
	}
	return best, args[len(best.path):]
}

func usage(w io.Writer, prefix []string) {
	fmt.Fprintln(w, "usage: mlperf <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	sorted := append([]command(nil), commands...)
	sort.Slice(sorted, func(i, j int) bool {
		return strings.Join(sorted[i].path, " ") < strings.Join(sorted[j].path, " ")
	})
	for _, c := range sorted {
		name := strings.Join(c.path, " ")
		if len(prefix) > 0 && !strings.HasPrefix(name, strings.Join(prefix, " ")) {
			continue
		}
		fmt.Fprintf(w, "  %-28s %s\n", name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'mlperf <command> -h' for a command's flags.")
}

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain is main without os.Exit, for tests.
func runMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout, nil)
		return 0
	}
	c, rest := lookup(args)
	if c == nil {
		fmt.Fprintf(stderr, "mlperf: unknown command %q\n\n", strings.Join(args, " "))
		usage(stderr, args[:1])
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal cancels ctx (the run ends, logs are flushed and say
	// why); stopping the notification then restores the default action, so
	// a second Ctrl-C ends the process at once.
	context.AfterFunc(ctx, stop)
	err := c.run(ctx, rest, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case isUsage(err):
		fmt.Fprintf(stderr, "mlperf %s: %s\n", strings.Join(c.path, " "), err)
		return 2
	default:
		fmt.Fprintf(stderr, "mlperf %s: %v\n", strings.Join(c.path, " "), err)
		return 1
	}
}

// parse parses args into fs for a command named "mlperf " + fs.Name():
// -h prints the flags on stdout and returns flag.ErrHelp; a flag error or
// a positional argument is a usage error.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
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
