//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile programs: each test shows that what the program tries does
// not escape the sandbox, and that nothing of it is left when Exec (or
// Close) returns.

// marker is a number unique to one test, put in the command lines of the
// processes a test starts so that survivors can be found.
func marker(t *testing.T) string {
	var b [3]byte
	rand.Read(b[:])
	return strconv.Itoa(700000 + int(b[0])<<8 | int(b[1]))
}

// survivors lists the processes whose command line holds m.
func survivors(m string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(b, []byte(m)) {
			continue
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}

func needTool(t *testing.T, s *Sandbox, name string) {
	t.Helper()
	if _, err := s.Look(name); err != nil {
		t.Skipf("%s not installed: %v", name, err)
	}
}

func TestInfiniteLoopStopsAtCPULimit(t *testing.T) {
	s := newSandbox(t, Limits{CPU: time.Second, Wall: time.Minute})
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", "while :; do :; done"}})
	if r.Verdict != CPULimit {
		t.Fatalf("verdict %v (%s), want cpu-limit", r.Verdict, r)
	}
	if r.CPU < time.Second/2 {
		t.Fatalf("killed after %v of CPU, far below the 1 s limit", r.CPU)
	}
}

func TestSleepingProgramStopsAtWallTimeout(t *testing.T) {
	m := marker(t)
	s := newSandbox(t, Limits{Wall: 300 * time.Millisecond})
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", "sleep " + m + " & sleep " + m}})
	if r.Verdict != WallTimeout {
		t.Fatalf("verdict %v, want wall-timeout", r.Verdict)
	}
	if left := survivors(m); len(left) > 0 {
		t.Fatalf("left running after the timeout: %v", left)
	}
}

func TestHugeOutputStopsAtOutputLimit(t *testing.T) {
	s := newSandbox(t, Limits{Output: 1000})
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", "echo start >&2; yes"}})
	if r.Verdict != OutputLimit || len(r.Stdout) != 1000 || string(r.Stderr) != "start\n" {
		t.Fatalf("stdout flood: verdict %v, kept %d bytes of stdout and %q; want output-limit, 1000", r.Verdict, len(r.Stdout), r.Stderr)
	}
	r = run(t, s, nil, Step{Argv: []string{"sh", "-c", "yes >&2"}})
	if r.Verdict != OutputLimit || len(r.Stderr) != 1000 {
		t.Fatalf("stderr flood: verdict %v, kept %d bytes; want output-limit, 1000", r.Verdict, len(r.Stderr))
	}
	// Exactly the limit is allowed.
	r = run(t, s, nil, Step{Argv: []string{"sh", "-c", "head -c 1000 /dev/zero"}})
	if r.Verdict != OK || len(r.Stdout) != 1000 {
		t.Fatalf("1000 bytes under a 1000-byte limit: %v, %d bytes", r.Verdict, len(r.Stdout))
	}
}

func TestDiskFillerStopsAtDiskLimit(t *testing.T) {
	s := newSandbox(t, Limits{Disk: 4 << 20, Wall: time.Minute})
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", "i=0; while :; do i=$((i+1)); head -c 1048576 /dev/zero > f$i || exit 9; sleep 0.01; done"}})
	if r.Verdict != DiskLimit {
		t.Fatalf("verdict %v (%s), want disk-limit", r.Verdict, r.Stderr)
	}
}

func TestBigFileStopsAtFileSizeLimit(t *testing.T) {
	s := newSandbox(t, Limits{FileSize: 1 << 20})
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", "head -c 2097152 /dev/zero > big"}})
	if r.Verdict == OK {
		t.Fatal("a 2 MiB file was written under a 1 MiB file-size limit")
	}
}

func TestMemoryHogFailsAtMemoryLimit(t *testing.T) {
	s := newSandbox(t, Limits{Memory: 256 << 20})
	needTool(t, s, "python3")
	r := run(t, s, nil, Step{Argv: []string{"python3", "-c", "b = bytearray(512 << 20); print('allocated')"}})
	if r.Verdict == OK || bytes.Contains(r.Stdout, []byte("allocated")) || !bytes.Contains(r.Stderr, []byte("MemoryError")) {
		t.Fatalf("512 MiB under a 256 MiB limit: %v, stdout %q stderr %q", r.Verdict, r.Stdout, r.Stderr)
	}
	r = run(t, s, nil, Step{Argv: []string{"python3", "-c", "b = bytearray(64 << 20); print('allocated')"}})
	if r.Verdict != OK {
		t.Fatalf("64 MiB under a 256 MiB limit: %v %s", r.Verdict, r.Stderr)
	}
}

// TestForkBombIsContained: the process count stops a fork bomb, the wall
// clock ends it, and none of its processes survives.
func TestForkBombIsContained(t *testing.T) {
	m := marker(t)
	s := newSandbox(t, Limits{Procs: 32, Wall: 2 * time.Second})
	bomb := "b() { sleep " + m + " & b | b & }; b; wait"
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", bomb}})
	if r.Verdict == OK {
		t.Fatalf("fork bomb ended ok")
	}
	if left := survivors(m); len(left) > 0 {
		t.Fatalf("fork bomb left %d processes: %v", len(left), left[:min(5, len(left))])
	}
}

// TestProcessCountIsEnforced counts the processes a program manages to
// start: fewer than its limit, whatever else runs on the machine.
func TestProcessCountIsEnforced(t *testing.T) {
	s := newSandbox(t, Limits{Procs: 20})
	needTool(t, s, "python3")
	prog := `
import os, time
n = 0
try:
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(100)
            os._exit(0)
        n += 1
except OSError as e:
    print(n, e.errno)
else:
    print(n, 0)
`
	r := run(t, s, nil, Step{Argv: []string{"python3", "-c", prog}})
	var n, errno int
	if _, err := fmt.Sscan(string(r.Stdout), &n, &errno); err != nil {
		t.Fatalf("output %q (%v, stderr %q)", r.Stdout, r.Verdict, r.Stderr)
	}
	if n >= 20 || n < 5 || errno != int(syscall.EAGAIN) {
		t.Fatalf("started %d processes (errno %d) under a limit of 20; want 5..19 and EAGAIN", n, errno)
	}
}

// TestChildrenThatOutliveTheProgramAreKilled: a program that starts
// sleeping children (one in its own session) and exits 0 is ok, and
// none of the children survives Exec.
func TestChildrenThatOutliveTheProgramAreKilled(t *testing.T) {
	m := marker(t)
	s := newSandbox(t, Limits{})
	prog := "(sleep " + m + " &); setsid sleep " + m + " & nohup sleep " + m + " >/dev/null 2>&1 & echo spawned"
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", prog}})
	if r.Verdict != OK || string(r.Stdout) != "spawned\n" {
		t.Fatalf("%v %q %q", r.Verdict, r.Stdout, r.Stderr)
	}
	if left := survivors(m); len(left) > 0 {
		t.Fatalf("children outlived the program: %v", left)
	}
}

func TestNoNetwork(t *testing.T) {
	s := newSandbox(t, Limits{Wall: 10 * time.Second})
	if !s.Isolation().Network {
		t.Skipf("this machine gives no network namespace: %s", s.Isolation())
	}
	needTool(t, s, "bash")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	prog := "echo hi > /dev/tcp/127.0.0.1/" + port + " && echo local; echo hi > /dev/tcp/1.1.1.1/53 && echo remote; tail -n +3 /proc/net/dev | cut -d: -f1"
	r := run(t, s, nil, Step{Argv: []string{"bash", "-c", prog}})
	if bytes.Contains(r.Stdout, []byte("local")) || bytes.Contains(r.Stdout, []byte("remote")) {
		t.Fatalf("the program reached the network: %q", r.Stdout)
	}
	if got := strings.Fields(string(r.Stdout)); len(got) != 1 || got[0] != "lo" {
		t.Fatalf("interfaces %q, want only lo", r.Stdout)
	}
	ln.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Fatal("the test's listener got a connection from the sandbox")
	}
}

// TestWritesOutsideTheFolderFailOrAreSwept: as root, the program's own
// user may write nowhere but its folder and the world-writable folders,
// and what it leaves there is removed on Close.
func TestWritesOutsideTheFolderFailOrAreSwept(t *testing.T) {
	s := newSandbox(t, Limits{})
	if !s.Isolation().OwnUser {
		t.Skipf("not root: programs run as you and can write wherever you can (%s)", s.Isolation())
	}
	// A temporary folder for the sandbox's folders and one beside it, both
	// open to all but writable by root only.
	base, err := os.MkdirTemp("", "mlperf-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	open, tmp := filepath.Join(base, "open"), filepath.Join(base, "tmp")
	for _, d := range []string{base, open, tmp} {
		os.MkdirAll(d, 0o755)
		os.Chmod(d, 0o755)
	}
	s, err = New(Config{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	m := marker(t)
	tmpFile := filepath.Join(os.TempDir(), "mlperf-sandbox-escape-"+m)
	shmDir := "/dev/shm/mlperf-sandbox-escape-" + m
	prog := fmt.Sprintf(`echo x > %s/owned && echo wrote-open
echo x > ../sibling-%s && echo wrote-parent
echo x > %s && echo wrote-tmp
mkdir -p %s/deep && echo x > %s/deep/f && echo wrote-shm
touch /etc/mlperf-sandbox-%s && echo wrote-etc
exit 0`, open, m, tmpFile, shmDir, shmDir, m)
	f, err := s.NewFolder(nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Exec(context.Background(), Step{Argv: []string{"sh", "-c", prog}})
	if err != nil {
		t.Fatal(err)
	}
	got := string(r.Stdout)
	for _, bad := range []string{"wrote-open", "wrote-parent", "wrote-etc"} {
		if strings.Contains(got, bad) {
			t.Errorf("%s: the program wrote outside its folder", bad)
		}
	}
	if !strings.Contains(got, "wrote-tmp") {
		t.Skipf("could not write the world-writable %s (%q): nothing to sweep", os.TempDir(), r.Stderr)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{tmpFile, shmDir} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			os.RemoveAll(p)
			t.Errorf("%s left behind after Close", p)
		}
	}
}

// TestProgramCannotSignalOtherProcesses: a process of the test's user is
// out of the program's reach.
func TestProgramCannotSignalOtherProcesses(t *testing.T) {
	s := newSandbox(t, Limits{})
	if !s.Isolation().OwnUser && !s.Isolation().PIDNamespace {
		t.Skipf("programs run as you with no PID namespace: they can signal your processes (%s)", s.Isolation())
	}
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	pid := strconv.Itoa(victim.Process.Pid)
	r := run(t, s, nil, Step{Argv: []string{"sh", "-c", "kill -9 " + pid + " && echo killed; kill -9 -1; echo alive"}})
	if strings.Contains(string(r.Stdout), "killed") {
		t.Fatalf("the program signalled pid %s", pid)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("victim gone: %v", err)
	}
}

// TestConcurrentProgramsAreIsolated: programs in two folders run at once
// under their own process counts and cannot read each other's folder.
func TestConcurrentProgramsAreIsolated(t *testing.T) {
	s := newSandbox(t, Limits{Procs: 16})
	a, err := s.NewFolder(map[string][]byte{"secret": []byte("a-secret")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := s.NewFolder(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	m := marker(t)
	// a fills its process count with sleepers, then waits.
	done := make(chan Result)
	go func() {
		r, _ := a.Exec(context.Background(), Step{Argv: []string{"sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep " + m + " & done; echo started > started; wait"}, Limits: Limits{Wall: time.Minute}})
		done <- r
	}()
	for {
		if _, err := os.Stat(filepath.Join(a.Path(), "started")); err == nil {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("a ended before starting its sleepers: %v %q", r.Verdict, r.Stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	r, err := b.Exec(context.Background(), Step{Argv: []string{"sh", "-c", "cat " + a.Path() + "/secret; for i in 1 2 3 4 5 6 7 8 9 10; do true & done; wait; echo forked"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Isolation().OwnUser && bytes.Contains(r.Stdout, []byte("a-secret")) {
		t.Errorf("b read a's folder")
	}
	if !bytes.Contains(r.Stdout, []byte("forked")) {
		t.Errorf("b could not start 10 processes while a held 13 (limits must be per program): %q %q", r.Stdout, r.Stderr)
	}
	a.Close()
	if r := <-done; r.Verdict == OK {
		t.Errorf("a ended ok though its folder was closed under it")
	}
	if left := survivors(m); len(left) > 0 {
		t.Fatalf("left running: %v", left)
	}
}

// TestWithoutNamespaces runs the hostile programs in a sandbox that
// could make no namespace (as in a container without CAP_SYS_ADMIN): as
// root, the per-folder user id still bounds the process count and finds
// the leftovers; otherwise only the process group is killed, which a
// program escapes with setsid (skipped).
func TestWithoutNamespaces(t *testing.T) {
	noNamespaces = true
	defer func() { noNamespaces = false }()
	t.Run("wall timeout", TestSleepingProgramStopsAtWallTimeout)
	t.Run("cpu limit", TestInfiniteLoopStopsAtCPULimit)
	t.Run("output limit", TestHugeOutputStopsAtOutputLimit)
	t.Run("fork bomb", TestForkBombIsContained)
	t.Run("process count", TestProcessCountIsEnforced)
	t.Run("concurrent", TestConcurrentProgramsAreIsolated)
	t.Run("writes", TestWritesOutsideTheFolderFailOrAreSwept)
	t.Run("signals", TestProgramCannotSignalOtherProcesses)
	if os.Geteuid() == 0 {
		t.Run("outliving children", TestChildrenThatOutliveTheProgramAreKilled)
	}
}
