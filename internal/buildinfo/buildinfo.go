// Package buildinfo names the source a binary was built from.
package buildinfo

import "runtime/debug"

// Revision names the source a binary was built from: the VCS revision
// the Go toolchain stamped in bi (vcs.revision, "+modified" for
// uncommitted changes), else the module version of a `go install
// module@version`, else stamped (the revision a Makefile stamps with
// -ldflags -X, for builds the toolchain does not stamp: a git worktree,
// whose .git is a file, or GOFLAGS=-buildvcs=false), else a sentence
// saying how to get one. bi may be nil.
func Revision(bi *debug.BuildInfo, stamped string) string {
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
