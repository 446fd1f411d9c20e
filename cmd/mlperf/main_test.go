package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/benchmark/spec"
)

func TestLookupPicksLongestPath(t *testing.T) {
	saved := commands
	defer func() { commands = saved }()
	commands = nil
	var got string
	handle("model", "m", func(context.Context, []string, io.Writer, io.Writer) error { got = "model"; return nil })
	handle("model build x", "mb", func(context.Context, []string, io.Writer, io.Writer) error { got = "model build x"; return nil })
	c, rest := lookup([]string{"model", "build", "x", "--size", "tiny"})
	if c == nil {
		t.Fatal("no command found")
	}
	_ = c.run(context.Background(), rest, io.Discard, io.Discard)
	if got != "model build x" || strings.Join(rest, " ") != "--size tiny" {
		t.Fatalf("got %q rest %v", got, rest)
	}
}

func TestUnknownCommandExitsTwo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"no-such-command"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), `unknown command "no-such-command"`) {
		t.Fatalf("stderr %q", errb.String())
	}
}

func TestUsageErrorExitsTwo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"version", "extra"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2; stderr %q", code, errb.String())
	}
}

// parse: a bad value and a positional argument are usage errors (the
// latter naming it); -h prints the command's usage on stdout and is
// flag.ErrHelp.
func TestParseFlagErrorsAreUsageErrors(t *testing.T) {
	fs := flag.NewFlagSet("run x", flag.ContinueOnError)
	fs.Int("n", 0, "")
	var out bytes.Buffer
	if err := parse(fs, []string{"-n", "x"}, &out); !errors.Is(err, spec.ErrUsage) {
		t.Errorf("bad value: %v", err)
	}
	if err := parse(fs, []string{"extra"}, &out); !errors.Is(err, spec.ErrUsage) || !strings.Contains(err.Error(), `"extra"`) {
		t.Errorf("positional argument: %v", err)
	}
	if err := parse(fs, []string{"-h"}, &out); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: mlperf run x") {
		t.Errorf("-h: %v, %q", err, out.String())
	}
}

// version names the C++ LoadGen release the loadgen reproduces, the
// release of loadgen.Version (its detail log's version line).
func TestVersionNamesTheLoadGenRelease(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "\nloadgen behaviour: MLCommons LoadGen 6.0.17\n") || !strings.HasPrefix(out.String(), "mlperf (Go) revision ") {
		t.Errorf("version printed %q", out.String())
	}
}
