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

// TestServeCmdArguments: `mlperf serve` -h prints the usage with the benchmarks and is
// flag.ErrHelp; no benchmark and a flag first are usage errors, an unknown benchmark is named; --sut of another kind is
// refused.
func TestServeCmdArguments(t *testing.T) {
	ctx := context.Background()
	for _, h := range []string{"-h", "-help", "--help"} {
		var out bytes.Buffer
		if err := serveCmd(ctx, []string{h}, &out, io.Discard); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out.String(), "usage: mlperf serve <benchmark>") || !strings.Contains(out.String(), "resnet50") {
			t.Errorf("%s: %v, %q", h, err, out.String())
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "serve: want a benchmark"},
		{[]string{""}, "serve: want a benchmark"},
		{[]string{"--listen", ":1"}, "serve: want a benchmark"},
		{[]string{"nosuch"}, `unknown benchmark "nosuch"`},
		{[]string{"resnet50", "--sut", "fake"}, `serve: --sut "fake": want model or null`},
	} {
		err := serveCmd(ctx, c.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.args != nil && c.args[0] != "nosuch" && !errors.Is(err, spec.ErrUsage)) {
			t.Errorf("serveCmd(%q): %v, want %q", c.args, err, c.want)
		}
	}
}
