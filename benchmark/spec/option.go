package spec

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/mlperf-go/inference/internal/deps"
)

// Option is one benchmark- or data-set-specific flag, registered as a
// string flag (a bool flag when Bool is set, valued "true" or "false");
// its value reaches the benchmark in an Extra map.
type Option struct {
	Name    string // flag name without dashes, e.g. "tokenizer"
	Default string // default value; may be computed at registration
	Usage   string
	Bool    bool // a flag given without a value (--official)
	// Deps, when set, says that Default is a side file or folder `make
	// setup` installs, at this slash-separated path inside the deps
	// folder (DepsPath; e.g. "bert/vocab.txt"). CheckDeps checks it.
	Deps string
}

// Extra holds the values of a benchmark's Options by name.
type Extra map[string]string

// DepsPath is where `make setup` installs a benchmark's side files (a
// vocabulary, a tokenizer), joined from elem: the first of the places
// package internal/deps searches ($MLPERF_DEPS, a clone's .deps, the
// executable's, the per-user folder) that has it, else the first place.
// Use it for an Option's Default with Option.Deps set.
func DepsPath(elem ...string) string {
	return deps.Path(path.Join(elem...))
}

// CheckDeps returns an error for each Option with Deps whose value in e
// is its default ("" counts as the default) and that is not installed:
// the error names every place searched once and the fix (`make setup`, or
// MLPERF_DEPS, or the flag).
func CheckDeps(opts []Option, e Extra) error {
	for _, o := range opts {
		if o.Deps == "" || (e[o.Name] != "" && e[o.Name] != o.Default) {
			continue
		}
		if _, err := deps.Find(o.Deps); err != nil {
			return fmt.Errorf("--%s: %w; or give --%s PATH", o.Name, err, o.Name)
		}
	}
	return nil
}

// FileIn resolves a data set argument that may name the file itself or a
// folder holding it under its conventional name.
func FileIn(path, name string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Join(path, name)
	}
	return path
}
