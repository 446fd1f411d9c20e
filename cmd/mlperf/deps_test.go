package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `mlperf deps` finds a side file in the per-user folder from a folder
// outside any clone, as the binary does for its own flags, and names the
// places searched when it is nowhere.
func TestDepsFindsThePerUserFolderFromAnyFolder(t *testing.T) {
	home := t.TempDir()
	tok := filepath.Join(home, ".local", "share", "mlperf-go", "deps", "gptj", "encoder.json")
	os.MkdirAll(filepath.Dir(tok), 0o755)
	os.WriteFile(tok, []byte("{}"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("MLPERF_DEPS", "")
	t.Chdir(t.TempDir())
	code, out := runMlperf(t, nil, "deps", "gptj/encoder.json")
	if code != 0 || strings.TrimSpace(out) != tok {
		t.Fatalf("deps: %d %q, want %s", code, out, tok)
	}
	code, out = runMlperf(t, nil, "deps", "gptj/none.json")
	if code != 1 || !strings.Contains(out, "not found") || !strings.Contains(out, "(per-user)") || !strings.Contains(out, "make setup") {
		t.Fatalf("missing file: %d %s", code, out)
	}
	if code, _ := runMlperf(t, nil, "deps"); code != 2 {
		t.Fatalf("no argument: exit %d, want 2", code)
	}
}
