package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Conf files that are not small regular files are refused, naming the
// file and what it is, never read without end (/dev/zero) or waited on
// (a FIFO without a writer).
func TestConfFilesMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "user.conf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	big := filepath.Join(dir, "big.conf")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"MLPERF_CACHE_DIR=" + filepath.Join(dir, "cache")}
	checkBadRuns(t, env, []string{"loadgen", "--out", filepath.Join(dir, "out")}, []badRun{
		{"user.conf /dev/zero", []string{"--user-conf", "/dev/zero"}, 1, "user conf /dev/zero is a character device", false, nil},
		{"user.conf a FIFO", []string{"--user-conf", fifo}, 1, "user conf " + fifo + " is a named pipe (FIFO), not a regular file; give a file", false, nil},
		{"audit.config /dev/zero", []string{"--audit-conf", "/dev/zero"}, 1, "audit config /dev/zero is a character device", false, nil},
		{"user.conf of 2 MiB", []string{"--user-conf", big}, 1, "it is 2097152 bytes, and such a file is at most 1048576", false, nil},
	})
	checkBadRuns(t, env, []string{"run", "resnet50", "--model", "synthetic:tiny", "--data", "synthetic", "--out", filepath.Join(dir, "run")}, []badRun{
		{"run --audit-conf a FIFO", []string{"--audit-conf", fifo}, 1, "audit config " + fifo + " is a named pipe (FIFO)", false, nil},
		{"run --user-conf /dev/zero", []string{"--user-conf", "/dev/zero"}, 1, "user conf /dev/zero is a character device", false, nil},
	})
}
