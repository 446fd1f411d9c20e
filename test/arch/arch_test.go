// Package arch holds the module's dependency rules as tests: which
// package may import which (go list's view of the non-test build).
package arch

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/mlperf-go/inference"

// pkg is what go list -json says of one package.
type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
	Deps       []string
}

// list returns every package of the module.
func list(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, errb.String())
	}
	var ps []pkg
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if len(ps) < 50 {
		t.Fatalf("go list found %d packages; want the whole module", len(ps))
	}
	return ps
}

// rel is a package's path inside the module ("" for another module's).
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// under reports whether r is dir or a package below it.
func under(r, dir string) bool { return r == dir || strings.HasPrefix(r, dir+"/") }

// violations applies rule to every package and its dependencies (deps:
// all of them, else direct imports) and returns "a -> b" for each
// forbidden pair.
func violations(ps []pkg, deps bool, from func(string) bool, forbidden func(string) bool) []string {
	var bad []string
	for _, p := range ps {
		r, _ := rel(p.ImportPath)
		if !from(r) {
			continue
		}
		targets := p.Imports
		if deps {
			targets = p.Deps
		}
		for _, d := range targets {
			if dr, ok := rel(d); ok && forbidden(dr) {
				bad = append(bad, r+" -> "+dr)
			}
		}
	}
	return bad
}

// TestDependenciesPointDown: data-set readers never import scorers (the
// data side owns its formats; scorers import them); internal/ holds leaf
// utilities that import nothing of the project above loadgen; model
// packages never reach back into the benchmark framework (they see only
// its seam, benchmark/spec); nothing imports a command.
func TestDependenciesPointDown(t *testing.T) {
	ps := list(t)
	rules := []struct {
		name      string
		deps      bool
		from      func(string) bool
		forbidden func(string) bool
	}{
		{"datasets import no scorer", true,
			func(r string) bool { return under(r, "datasets") },
			func(d string) bool { return under(d, "accuracy") }},
		{"internal imports only internal and loadgen", true,
			func(r string) bool { return under(r, "internal") },
			func(d string) bool { return !under(d, "internal") && !under(d, "loadgen") }},
		{"models never import the framework", true,
			func(r string) bool { return under(r, "models") },
			func(d string) bool {
				return under(d, "benchmark") && !under(d, "benchmark/spec") || under(d, "cmd") || under(d, "serve") || under(d, "submission") || under(d, "compliance")
			}},
		{"nothing imports a command", false,
			func(string) bool { return true },
			func(d string) bool { return under(d, "cmd") || under(d, "scripts") }},
	}
	for _, r := range rules {
		if bad := violations(ps, r.deps, r.from, r.forbidden); len(bad) > 0 {
			t.Errorf("%s: %d forbidden imports:\n%s", r.name, len(bad), strings.Join(bad, "\n"))
		}
	}
}

// TestFlagsAreParsedOnlyInCommands: no library package imports "flag";
// commands (package main under cmd/) parse the command line and hand
// library packages typed options.
func TestFlagsAreParsedOnlyInCommands(t *testing.T) {
	var bad []string
	for _, p := range list(t) {
		r, _ := rel(p.ImportPath)
		if under(r, "cmd") {
			continue
		}
		for _, d := range p.Imports {
			if d == "flag" {
				bad = append(bad, r)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("packages outside cmd/ that import flag: %s", strings.Join(bad, ", "))
	}
}
