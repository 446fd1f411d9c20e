package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckDeps refuses a default side file installed nowhere, naming the
// flag and the fix, and accepts it once the per-user folder has it; a
// value the user gave is left to the benchmark.
func TestCheckDeps(t *testing.T) {
	home := t.TempDir()
	t.Chdir(t.TempDir())
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("MLPERF_DEPS", "")
	opts := []Option{{Name: "vocab", Default: DepsPath("bert", "vocab.txt"), Deps: "bert/vocab.txt"}, {Name: "other", Default: "x"}}
	err := CheckDeps(opts, Extra{"vocab": opts[0].Default, "other": "y"})
	if err == nil || !strings.Contains(err.Error(), "--vocab") || !strings.Contains(err.Error(), "make setup") {
		t.Fatalf("not installed: %v", err)
	}
	if err := CheckDeps(opts, Extra{"vocab": "/my/vocab.txt"}); err != nil {
		t.Fatalf("a value the user gave: %v", err)
	}
	p := filepath.Join(home, ".local", "share", "mlperf-go", "deps", "bert", "vocab.txt")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("[PAD]\n"), 0o644)
	if err := CheckDeps(opts, Extra{}); err != nil {
		t.Fatalf("installed in the per-user folder: %v", err)
	}
	if got := DepsPath("bert", "vocab.txt"); got != p {
		t.Fatalf("DepsPath = %q, want the per-user copy %q", got, p)
	}
}

// FileIn names the conventional file inside a folder and leaves a file as
// it is.
func TestFileIn(t *testing.T) {
	dir := t.TempDir()
	if got := FileIn(dir, "x.json"); got != filepath.Join(dir, "x.json") {
		t.Errorf("folder: %s", got)
	}
	f := filepath.Join(dir, "y.json")
	os.WriteFile(f, nil, 0o644)
	if got := FileIn(f, "x.json"); got != f {
		t.Errorf("file: %s", got)
	}
}
