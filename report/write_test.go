package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// listDir names what a folder holds.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// A report that fails leaves the file at --out as it was (it once deleted
// it, even a file it had not made) and nothing beside it; one that
// succeeds replaces it whole.
func TestWriteFileNeverRemovesWhatItDidNotMake(t *testing.T) {
	f := runs(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	os.WriteFile(out, []byte("an earlier report"), 0o600)
	empty := t.TempDir()
	// A folder without runs: fails before any page is written.
	if err := WriteFile(out, Options{Paths: []string{empty}}); err == nil || !strings.Contains(err.Error(), "no mlperf_log_detail.txt") {
		t.Fatalf("an empty folder: %v", err)
	}
	// A run whose detail log cannot be read: fails while the page is
	// being made, after the temporary file exists.
	bad := filepath.Join(t.TempDir(), "runs")
	copyDir(t, f.server, filepath.Join(bad, "a"))
	os.MkdirAll(filepath.Join(bad, "b"), 0o755)
	mkfifo(t, filepath.Join(bad, "b", "mlperf_log_detail.txt"))
	if err := WriteFile(out, Options{Paths: []string{bad}}); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Fatalf("a run whose detail log is a FIFO: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "an earlier report" {
		t.Fatalf("a failed report changed %s: %q", out, b)
	}
	if got := listDir(t, dir); len(got) != 1 || got[0] != "report.html" {
		t.Fatalf("a failed report left %v", got)
	}
	if err := WriteFile(out, Options{Paths: []string{f.server}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(b), "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(string(b)), "</html>") {
		t.Fatalf("the new report is not a whole page (%d bytes)", len(b))
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if got := listDir(t, dir); len(got) != 1 {
		t.Fatalf("a report left %v", got)
	}
	// Paths of the wrong kind are refused, naming what to give.
	for _, c := range []struct{ path, want string }{
		{dir, "is a folder; give the HTML file to write"},
		{filepath.Join(dir, "no", "r.html"), "the folder " + filepath.Join(dir, "no") + " does not exist"},
		{filepath.Join(out, "r.html"), "is not a folder"},
	} {
		if err := WriteFile(c.path, Options{Paths: []string{f.server}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}

// Paths that cannot hold runs are named with what to give instead.
func TestFindRefusesPathsOfTheWrongKind(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("x"), 0o644)
	summary := filepath.Join(dir, "mlperf_log_summary.txt")
	os.WriteFile(summary, []byte("x"), 0o644)
	for _, c := range []struct{ path, want string }{
		{notes, notes + " is a file, not a folder; give a run folder"},
		{summary, "give the run folder that holds it (" + dir + ")"},
		{filepath.Join(dir, "missing"), "missing does not exist; give a run folder"},
	} {
		if _, err := Find(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	f := runs(t)
	one, err := Find(filepath.Join(f.server, "mlperf_log_detail.txt"))
	if err != nil || len(one) != 1 || one[0] != f.server {
		t.Fatalf("Find of a detail log: %v %v", one, err)
	}
	if err := Write(nil, Options{}); err == nil || !strings.Contains(err.Error(), "give one folder, or two") {
		t.Errorf("no path: %v", err)
	}
}
