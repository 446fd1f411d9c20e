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

// revision is the source revision stamped by the Makefile
// (-ldflags "-X main.revision=..."), for builds the Go toolchain does not
// stamp itself: a git worktree (go reads only a .git folder), or
// GOFLAGS=-buildvcs=false.
var revision string

func init() {
	handle("version", "print the mlperf version and the LoadGen version it matches", func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			return usageError("version takes no arguments")
		}
		bi, _ := debug.ReadBuildInfo()
		fmt.Fprintf(stdout, "mlperf (Go) revision %s, %s\nloadgen behaviour: MLCommons LoadGen %s\n", sourceRevision(bi, revision), runtime.Version(), loadgenVersion)
		return nil
	})
}

// sourceRevision names the source a binary was built from: the VCS
// revision the Go toolchain stamped (vcs.revision, "+modified" for
// uncommitted changes), else the module version of a `go install
// module@version`, else the revision the Makefile stamped, else says how
// to get one.
func sourceRevision(bi *debug.BuildInfo, stamped string) string {
	if bi != nil {
		rev, modified := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			if modified {
				rev += "+modified"
			}
			return rev
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	if stamped != "" {
		return stamped
	}
	return "unknown (built without version control information: build with `make build`, or `go build` in a git clone without GOFLAGS=-buildvcs=false)"
}
