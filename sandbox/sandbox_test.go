//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newSandbox(t *testing.T, lim Limits) *Sandbox {
	t.Helper()
	s, err := New(Config{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("isolation: %s", s.Isolation())
	return s
}

func run(t *testing.T, s *Sandbox, files map[string][]byte, st Step) Result {
	t.Helper()
	r, err := s.Run(context.Background(), files, st)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunPassesStdinAndReportsExitStatus(t *testing.T) {
	s := newSandbox(t, Limits{})
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", "cat; echo oops >&2; exit 3"}, Stdin: []byte("hello\n")})
	if r.Verdict != Exited || r.ExitCode != 3 || string(r.Stdout) != "hello\n" || string(r.Stderr) != "oops\n" {
		t.Fatalf("got %v status %d stdout %q stderr %q", r.Verdict, r.ExitCode, r.Stdout, r.Stderr)
	}
	r = run(t, s, nil, Step{Argv: []string{"sh", "-c", "read x; echo \"got $x\""}, Stdin: []byte("42\n")})
	if r.Verdict != OK || r.ExitCode != 0 || string(r.Stdout) != "got 42\n" {
		t.Fatalf("got %v status %d stdout %q", r.Verdict, r.ExitCode, r.Stdout)
	}
	// No stdin: end of file at once, never a hang.
	r = run(t, s, nil, Step{Argv: []string{"sh", "-c", "cat; echo done"}})
	if r.Verdict != OK || string(r.Stdout) != "done\n" {
		t.Fatalf("empty stdin: %v %q", r.Verdict, r.Stdout)
	}
}

func TestFolderHoldsFilesAndIsRemovedOnClose(t *testing.T) {
	s := newSandbox(t, Limits{})
	f, err := s.NewFolder(map[string][]byte{"main.txt": []byte("top"), "sub/dir/x.txt": []byte("deep")})
	if err != nil {
		t.Fatal(err)
	}
	dir := f.Path()
	r, err := f.Exec(context.Background(), Step{Argv: []string{"sh", "-c", "cat main.txt sub/dir/x.txt; pwd; echo $HOME $TMPDIR; echo new > made.txt; chmod 000 sub"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "topdeep" + dir + "\n" + dir + " " + dir + "\n"
	if r.Verdict != OK || string(r.Stdout) != want {
		t.Fatalf("got %v %q, want %q (stderr %q)", r.Verdict, r.Stdout, want, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "made.txt")); err != nil || string(b) != "new\n" {
		t.Fatalf("file the program wrote: %q %v", b, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("folder %s still there after Close (%v)", dir, err)
	}
	if _, err := f.Exec(context.Background(), Step{Argv: []string{"true"}}); err == nil {
		t.Fatal("Exec after Close succeeded")
	}
}

func TestBadFileNamesAndCommandsAreRefused(t *testing.T) {
	s := newSandbox(t, Limits{})
	for _, name := range []string{"", "/etc/passwd", "../escape", "a/../../escape", "a/../b", ".", "..", "x\x00y"} {
		if _, err := s.NewFolder(map[string][]byte{name: nil}); !errors.Is(err, ErrBadFile) {
			t.Errorf("file %q: err %v, want ErrBadFile", name, err)
		}
	}
	for _, argv0 := range []string{"/bin/sh", "../sh", "./../sh", "bin/sh"} {
		if _, err := s.Run(context.Background(), nil, Step{Argv: []string{argv0}}); !errors.Is(err, ErrBadFile) {
			t.Errorf("command %q: err %v, want ErrBadFile", argv0, err)
		}
	}
	if _, err := s.Run(context.Background(), nil, Step{Argv: []string{"no-such-tool-mlperf"}}); !errors.Is(err, ErrToolchainMissing) {
		t.Errorf("missing tool: err %v, want ErrToolchainMissing", err)
	}
	if _, err := s.Run(context.Background(), nil, Step{}); err == nil {
		t.Error("empty command accepted")
	}
	if _, err := s.Run(context.Background(), nil, Step{Argv: []string{"true"}, Limits: Limits{Procs: -1}}); err == nil {
		t.Error("negative limit accepted")
	}
	if _, err := New(Config{Limits: Limits{Memory: 1000}}); err == nil {
		t.Error("a 1000-byte memory limit accepted")
	}
	if _, err := New(Config{TempDir: filepath.Join(t.TempDir(), "missing")}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("missing temporary folder: %v", err)
	}
}

func TestResultString(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Result{Verdict: OK}, "ok"},
		{Result{Verdict: Exited, ExitCode: 2}, "exited with status 2"},
		{Result{Verdict: Signaled, Signal: "segmentation fault"}, "killed by signal: segmentation fault"},
		{Result{Verdict: WallTimeout, Wall: 1500 * time.Millisecond}, "wall-timeout after 1.5s"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
	if Verdict(99).String() != "verdict(99)" {
		t.Error(Verdict(99).String())
	}
}

func TestCanceledContextKillsProgram(t *testing.T) {
	s := newSandbox(t, Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	f, err := s.NewFolder(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan Result)
	go func() {
		r, _ := f.Exec(ctx, Step{Argv: []string{"sh", "-c", "echo started > started; exec sleep 1000"}})
		done <- r
	}()
	for {
		if _, err := os.Stat(filepath.Join(f.Path(), "started")); err == nil {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("ended before it started: %v %q", r.Verdict, r.Stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if r := <-done; r.Verdict != Canceled {
		t.Fatalf("verdict %v, want canceled", r.Verdict)
	}
}

func TestIsolationIsConsistentWithUser(t *testing.T) {
	s := newSandbox(t, Limits{})
	iso := s.Isolation()
	if root := os.Geteuid() == 0; iso.OwnUser != root || (iso.UserNamespace && root) {
		t.Fatalf("root=%v but isolation %+v", root, iso)
	}
	if !iso.Network && len(iso.Notes) == 0 {
		t.Fatal("no network isolation and no note saying why")
	}
	if !strings.Contains(iso.String(), "namespace") && !strings.Contains(iso.String(), "process group only") && !iso.OwnUser {
		t.Fatalf("isolation string %q", iso)
	}
}
