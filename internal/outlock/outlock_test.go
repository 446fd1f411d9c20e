package outlock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets the test hold a lock from another process.
func TestMain(m *testing.M) {
	if dir := os.Getenv("OUTLOCK_HOLD"); dir != "" {
		l, err := Acquire(dir)
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		os.Stdin.Read(make([]byte, 1)) // until the parent closes stdin
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A second process is refused while the first holds the folder, told the
// holder's pid; once the holder ends (even without releasing) the folder
// is free again, and a released lock leaves no file behind.
func TestSecondRunIsRefusedWithTheHoldersPID(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "OUTLOCK_HOLD="+dir)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		t.Fatalf("the holder did not take the lock: %q %v", buf, err)
	}
	_, err := Acquire(dir)
	if !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "process "+strconv.Itoa(cmd.Process.Pid)+" is writing its logs there") {
		t.Errorf("second run: %v", err)
	}
	cmd.Process.Kill() // ends without Release
	cmd.Wait()
	stdin.Close()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, Name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file stays after Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("a second Release: %v", err)
	}
}
