package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// loadgenVersion is the C++ LoadGen release whose behaviour the Go loadgen reproduces.
const loadgenVersion = "6.0.17"

func init() {
	handle("version", "print the mlperf version and the LoadGen version it matches", func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usageError("version takes no arguments")
		}
		rev := "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					rev = s.Value
				}
			}
		}
		fmt.Fprintf(stdout, "mlperf (Go) revision %s, %s\nloadgen behaviour: MLCommons LoadGen %s\n", rev, runtime.Version(), loadgenVersion)
		return nil
	})
}
