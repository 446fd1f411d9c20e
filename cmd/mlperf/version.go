package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mlperf-go/inference/internal/buildinfo"
	"github.com/mlperf-go/inference/loadgen"
)

// revision is the source revision stamped by the Makefile
// (-ldflags "-X main.revision=..."), for builds the Go toolchain does not
// stamp itself (see buildinfo.Revision).
var revision string

func init() {
	handle("version", "print the mlperf version and the LoadGen version it matches", func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usageError("version takes no arguments")
		}
		bi, _ := debug.ReadBuildInfo()
		// loadgen.Version is "<C++ LoadGen release> @ mlperf-go".
		release, _, _ := strings.Cut(loadgen.Version, " ")
		fmt.Fprintf(stdout, "mlperf (Go) revision %s, %s\nloadgen behaviour: MLCommons LoadGen %s\n", buildinfo.Revision(bi, revision), runtime.Version(), release)
		return nil
	})
}
