package submission

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// TestCheckNameEachRule: one case per rule, and the names just inside.
func TestCheckNameEachRule(t *testing.T) {
	for _, c := range []struct {
		name, want string // "" accepted
	}{
		{"go_null_sut", ""},
		{"a b.c-d_e", ""},
		{"x.", ""},
		{strings.Repeat("n", 200), ""},
		{"", "is empty"},
		{".", "is not a folder name"},
		{"..", "is not a folder name"},
		{"a/b", "holds a path separator"},
		{`a\b`, "holds a path separator"},
		{".hidden", "starts with .;"},
		{"-flag", "starts with -;"},
		{strings.Repeat("n", 201), "is longer than 200 bytes"},
		{"a\x01b", "holds a control character"},
		{"\x01ab", "holds a control character"},
		{"a\x7fb", "holds a control character"},
		{"a\xffb", "holds a control character"},
	} {
		err := checkName("system", c.name)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "submission: system ")):
			t.Errorf("%q: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestWriteFileRefusesLinksAndFolders: a file is written in place of
// nothing or of a file, never through a symbolic link or over a folder.
func TestWriteFileRefusesLinksAndFolders(t *testing.T) {
	root := t.TempDir()
	w, err := newDirWriter(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.writeFile("a/b.txt", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := w.writeFile("a/b.txt", []byte("2")); err != nil {
		t.Fatalf("over a file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a", "b.txt")); string(b) != "2" {
		t.Errorf("a/b.txt holds %q", b)
	}
	outside := filepath.Join(t.TempDir(), "target")
	if err := os.Symlink(outside, filepath.Join(root, "a", "link.txt")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	if err := w.writeFile("a/link.txt", []byte("x")); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("through a link: %v", err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the link's target was written")
	}
	os.Mkdir(filepath.Join(root, "a", "dir.txt"), 0o755)
	if err := w.writeFile("a/dir.txt", []byte("x")); err == nil || !strings.Contains(err.Error(), "is a folder where the tree needs a file") {
		t.Errorf("over a folder: %v", err)
	}
}

// TestVersionOf: the module version, else devel, with the first 12 digits
// of a VCS revision that has them, and the LoadGen version.
func TestVersionOf(t *testing.T) {
	rev := func(v string) []debug.BuildSetting { return []debug.BuildSetting{{Key: "vcs.revision", Value: v}} }
	for _, c := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "mlperf-go devel, LoadGen "},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "mlperf-go v1.2.3, LoadGen "},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev("0123456789abcdef")}, true, "mlperf-go devel (0123456789ab), LoadGen "},
		{&debug.BuildInfo{Settings: rev("0123456789ab")}, true, "mlperf-go devel (0123456789ab), LoadGen "},
		{&debug.BuildInfo{Settings: rev("0123456789a")}, true, "mlperf-go devel, LoadGen "},
		{&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "0123456789abcdef"}}}, true, "mlperf-go devel, LoadGen "},
	} {
		if got := versionOf(c.bi, c.ok); got != c.want+loadgen.Version {
			t.Errorf("versionOf(%+v) = %q, want %q", c.bi, got, c.want+loadgen.Version)
		}
	}
}
