package submission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestDirWriterKeepsPathsUnderRoot: a path that is absolute or climbs out
// of root is refused (and nothing is written for it), one that only looks
// like it (a/..b) is taken; a folder on the way that is a link out of
// root is refused; an --out under a file is refused at once.
func TestDirWriterKeepsPathsUnderRoot(t *testing.T) {
	t.Chdir(t.TempDir()) // a write that escapes root lands here, not in the source tree
	dir := t.TempDir()
	root := filepath.Join(dir, "out")
	w, err := newDirWriter(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"/abs/x.txt", "..", "../x.txt", "a/../../x.txt"} {
		if _, err := w.path(rel); err == nil || !strings.Contains(err.Error(), rel+" would be outside --out "+root) {
			t.Errorf("path(%q): %v", rel, err)
		}
		if err := w.writeFile(rel, []byte("x")); err == nil {
			t.Errorf("writeFile(%q) succeeded", rel)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Error("x.txt was written beside --out")
	}
	for rel, want := range map[string]string{"a/..b": "a/..b", "..b/c": "..b/c", "a/../b": "b", "./c": "c"} {
		if got, err := w.path(rel); err != nil || got != filepath.Join(root, want) {
			t.Errorf("path(%q) = %q, %v; want %q", rel, got, err, filepath.Join(root, want))
		}
	}
	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	if err := os.Symlink(outside, filepath.Join(root, "lnk")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	if err := w.writeFile("lnk/x.txt", []byte("x")); err == nil || !strings.Contains(err.Error(), "is a symbolic link to "+outside+", outside --out") {
		t.Errorf("through a linked folder: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote %d entries through the link", len(ents))
	}
	if _, err := os.Stat("x.txt"); err == nil {
		t.Error("x.txt was written in the working folder")
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if _, err := newDirWriter(filepath.Join(file, "out")); err == nil || !strings.HasPrefix(err.Error(), "submission: --out: mkdir "+file+": not a directory") {
		t.Errorf("--out under a file: %v", err)
	}
}

// TestTreeWriteRefusesBadNamesBeforeWriting: a system or scenario name
// that is not one path component, or an --out under a file, is refused
// by Tree.Write before anything is written.
func TestTreeWriteRefusesBadNamesBeforeWriting(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		edit func(*Tree)
		want string
	}{
		{func(tr *Tree) { tr.System = "../box" }, `system name "../box" holds a path separator`},
		{func(tr *Tree) { tr.Scenarios = []Scenario{{Name: "../Offline"}} }, `scenario "../Offline" holds a path separator`},
	} {
		tr := &Tree{Out: out, Division: "closed", Submitter: "Tester", System: "box", SystemJSON: SystemTemplate("box", "edge"), Benchmark: "resnet"}
		c.edit(tr)
		if _, err := tr.Write(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused tree made %s", out)
		}
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	tr := &Tree{Out: filepath.Join(file, "out"), Division: "closed", Submitter: "Tester", System: "box", SystemJSON: SystemTemplate("box", "edge"), Benchmark: "resnet"}
	if _, err := tr.Write(); err == nil || !strings.HasPrefix(err.Error(), "submission: --out: mkdir "+file+": not a directory") {
		t.Errorf("--out under a file: %v", err)
	}
	if _, err := os.Stat("box.json"); err == nil {
		t.Error("box.json was written in the working folder")
	}
}

// TestEffectiveConfInMilliseconds: a run made without a user.conf gets
// its effective settings as user.conf lines, the expected latency in
// milliseconds (1,500,000 ns is 1.5, 250,000,000 ns is 250) and the
// target QPS as logged.
func TestEffectiveConfInMilliseconds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mlperf_log_detail.txt")
	var b strings.Builder
	for _, kv := range [][2]string{
		{"requested_single_stream_expected_latency_ns", "1500000"},
		{"requested_multi_stream_expected_latency_ns", "250000000"},
		{"effective_target_qps", "12.5"},
	} {
		fmt.Fprintf(&b, `:::MLLOG {"key": "%s", "value": %s, "time_ms": 1.0, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, "file": "x", "line_no": 1, "pid": 1, "tid": 1}}`+"\n", kv[0], kv[1])
	}
	os.WriteFile(p, []byte(b.String()), 0o644)
	for sc, want := range map[string]string{
		"SingleStream": "*.SingleStream.target_latency = 1.5\n",
		"MultiStream":  "*.MultiStream.target_latency = 250\n",
		"Server":       "*.Server.target_qps = 12.5\n",
		"Offline":      "*.Offline.target_qps = 12.5\n",
	} {
		if got := effectiveConf(p, "resnet", sc); got != want {
			t.Errorf("%s: %q, want %q", sc, got, want)
		}
	}
}

// TestMemTotalAsSysinfo: the system description's host memory is
// /proc/meminfo's MemTotal in GiB, which sysinfo(2) reports too (in
// bytes, from the same count of pages).
func TestMemTotalAsSysinfo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/meminfo is Linux's")
	}
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		t.Skip(err)
	}
	bytes := float64(si.Totalram) * float64(si.Unit)
	if want := fmt.Sprintf("%.0f GB", bytes/(1<<30)); memTotal() != want {
		t.Errorf("memTotal() = %q, want %q (sysinfo: %.0f bytes)", memTotal(), want, bytes)
	}
}
