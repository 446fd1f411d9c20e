package boundedread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFileRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "user.conf")
	os.WriteFile(small, []byte("*.*.x = 1\n"), 0o644)
	if b, err := File(small, "--user-conf", 10); err != nil || string(b) != "*.*.x = 1\n" {
		t.Fatalf("a 10-byte file at a bound of 10: %q, %v", b, err)
	}
	if _, err := File(small, "--user-conf", 9); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "it is 10 bytes, and such a file is at most 9") {
		t.Errorf("a 10-byte file at a bound of 9: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := File(fifo, "--user-conf", 1<<20); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "--user-conf "+fifo+" is a named pipe (FIFO)") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a FIFO without a writer blocked the read")
	}
	for path, want := range map[string]string{
		"/dev/zero": "is a character device (such as /dev/zero)",
		dir:         "is a folder",
	} {
		if _, err := File(path, "--audit-conf", 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := File(filepath.Join(dir, "nope"), "--user-conf", 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
