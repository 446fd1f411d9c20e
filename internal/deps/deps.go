// Package deps finds the side files `make setup` installs (the ONNX
// Runtime library, the BERT vocabulary, the GPT-J and Llama 2 tokenizer
// data, ollama) so that the binary works from any folder. A file named by
// its path inside the deps folder (e.g. "bert/vocab.txt") is searched, in
// order, at:
//
//  1. $MLPERF_DEPS/<rel>, when MLPERF_DEPS is set;
//  2. .deps/<rel> in the working directory or any parent (a clone where
//     `make setup` ran);
//  3. .deps/<rel> beside the executable or in its parent folder (bin/ of a
//     clone);
//  4. the per-user folder (UserDir: $XDG_DATA_HOME/mlperf-go/deps, by
//     default ~/.local/share/mlperf-go/deps), where `make setup` installs a
//     copy too, for a binary installed with go install.
//
// Functions are safe for concurrent use.
package deps

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Env names the variable holding a deps folder.
const Env = "MLPERF_DEPS"

// ErrNotFound reports a side file found in none of the places.
var ErrNotFound = errors.New("not found")

// Lookup is where a search starts: the environment, the working directory
// and the executable ("" for none). The zero value uses the process's.
type Lookup struct {
	Getenv   func(string) string
	Cwd, Exe string
}

func (l Lookup) resolve() Lookup {
	if l.Getenv == nil {
		l.Getenv = os.Getenv
		l.Cwd, _ = os.Getwd()
		l.Exe, _ = os.Executable()
	}
	return l
}

// UserDir is the per-user deps folder: $XDG_DATA_HOME/mlperf-go/deps
// (when absolute), else ~/.local/share/mlperf-go/deps ("" when neither
// variable is set).
func UserDir() string { return Lookup{}.UserDir() }

// UserDir is UserDir for l's environment.
func (l Lookup) UserDir() string {
	l = l.resolve()
	if x := l.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "mlperf-go", "deps")
	}
	if h := l.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "mlperf-go", "deps")
	}
	return ""
}

// place is one place searched, and how the not-found message names it
// (the parents of the working directory are named once, together).
type place struct {
	path, label string
}

func (l Lookup) places(rel string) []place {
	l = l.resolve()
	rel = filepath.FromSlash(rel)
	var ps []place
	seen := map[string]bool{}
	add := func(p, label string) {
		if p == "" || seen[p] {
			return
		}
		seen[p] = true
		ps = append(ps, place{p, label})
	}
	if d := l.Getenv(Env); d != "" {
		if abs, err := filepath.Abs(filepath.Join(d, rel)); err == nil {
			add(abs, abs+" ($"+Env+")")
		}
	}
	if l.Cwd != "" {
		first := true
		for dir := l.Cwd; ; dir = filepath.Dir(dir) {
			label := ""
			if first {
				label = filepath.Join(l.Cwd, ".deps", rel) + " and the same in every parent folder"
				first = false
			}
			add(filepath.Join(dir, ".deps", rel), label)
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if l.Exe != "" {
		d := filepath.Dir(l.Exe)
		for _, dir := range []string{d, filepath.Dir(d)} {
			p := filepath.Join(dir, ".deps", rel)
			add(p, p)
		}
	}
	if d := l.UserDir(); d != "" {
		p := filepath.Join(d, rel)
		add(p, p+" (per-user)")
	}
	return ps
}

// Places lists where rel is searched, in order, each once.
func (l Lookup) Places(rel string) []string {
	var out []string
	for _, p := range l.places(rel) {
		out = append(out, p.path)
	}
	return out
}

// Find returns the first place holding rel (a file or folder), or an
// error wrapping ErrNotFound that lists each place searched once and the
// fix.
func Find(rel string) (string, error) { return Lookup{}.Find(rel) }

// Find is Find for l's environment.
func (l Lookup) Find(rel string) (string, error) {
	ps := l.places(rel)
	var labels []string
	for _, p := range ps {
		if _, err := os.Stat(p.path); err == nil {
			return p.path, nil
		}
		if p.label != "" {
			labels = append(labels, p.label)
		}
	}
	return "", fmt.Errorf("%s %w; looked in: %s; run `make setup` in a clone of the project (it installs into the clone's .deps and the per-user folder), or set %s to a folder holding %s",
		filepath.FromSlash(rel), ErrNotFound, strings.Join(labels, ", "), Env, filepath.FromSlash(rel))
}

// Path returns Find's path for rel, or, when it is nowhere, the first
// place searched (so that a default shown in --help is a real path).
func Path(rel string) string {
	if p, err := Find(rel); err == nil {
		return p
	}
	if ps := (Lookup{}).places(rel); len(ps) > 0 {
		return ps[0].path
	}
	return filepath.Join(".deps", filepath.FromSlash(rel))
}
