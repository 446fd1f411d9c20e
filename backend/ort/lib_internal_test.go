package ort

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindLibrary(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, ".deps", relLibrary)
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "models", "resnet50")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	userLib := filepath.Join(root, "mlperf-go", "deps", relLibrary)
	home := t.TempDir()
	homeLib := filepath.Join(home, ".local", "share", "mlperf-go", "deps", relLibrary)
	for _, p := range []string{userLib, homeLib} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	cases := []struct {
		name     string
		getenv   func(string) string
		cwd, exe string
		want     string // path, or error substring prefixed with "!"
	}{
		{"env var", env(EnvLibrary, lib), other, "", lib},
		{"env var missing", env(EnvLibrary, filepath.Join(other, "x.so")), sub, "", "!" + filepath.Join(other, "x.so") + " (from " + EnvLibrary + ") does not exist; run make setup"},
		{"deps var", env(EnvDeps, filepath.Join(root, ".deps")), other, "", lib},
		{"parent of cwd", env(), sub, "", lib},
		{"beside executable", env(), other, filepath.Join(root, "mlperf"), lib},
		{"parent of executable dir", env(), other, filepath.Join(root, "bin", "mlperf"), lib},
		{"nowhere", env(), other, "", "!libonnxruntime.so.1 not found"},
		{"per-user folder", env("XDG_DATA_HOME", root), other, "", userLib},
		{"per-user folder from HOME", env("HOME", home), other, "", homeLib},
		{"nowhere names the per-user folder", env("HOME", other), other, "", "!" + filepath.Join(other, ".local", "share", "mlperf-go", "deps", relLibrary) + " (per-user)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := findLibrary(c.getenv, c.cwd, c.exe)
			if strings.HasPrefix(c.want, "!") {
				if !errors.Is(err, ErrNoLibrary) || !strings.Contains(err.Error(), c.want[1:]) {
					t.Fatalf("err = %v, want %q", err, c.want[1:])
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// Each place is listed once in the message, even when the executable's
// folder is also a parent of the working directory.
func TestFindLibraryListsEachPlaceOnce(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o755)
	_, err := findLibrary(func(string) string { return "" }, bin, filepath.Join(bin, "mlperf"))
	if err == nil {
		t.Fatal("found a library in an empty folder")
	}
	for _, p := range []string{filepath.Join(bin, ".deps", relLibrary), filepath.Join(root, ".deps", relLibrary)} {
		if n := strings.Count(err.Error(), p); n > 1 {
			t.Fatalf("%s listed %d times: %v", p, n, err)
		}
	}
}
