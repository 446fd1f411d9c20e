//go:build unix

package report

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path (a special file named like a log).
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
}
