// Package outlock keeps two runs from writing into the same output
// folder: a run takes an exclusive lock on a file in the folder and holds
// it until it ends; a second run is refused, told the holder's process id.
// The lock is the kernel's (flock), so it goes with the process that held
// it, however that process ends.
package outlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Name is the lock file in the output folder.
const Name = ".mlperf.lock"

// ErrHeld marks a folder another process holds.
var ErrHeld = errors.New("held by another run")

// Lock is a held output-folder lock.
type Lock struct {
	f    *os.File
	path string
}

// Acquire locks dir (which must exist) for this process, or fails with
// ErrHeld naming the process that holds it.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, Name)
	for range 8 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("outlock: %w", err)
		}
		if err := tryLock(f); err != nil {
			holder := readPID(f)
			f.Close()
			if errors.Is(err, errWouldBlock) {
				return nil, fmt.Errorf("outlock: %s: %w (process %s is writing its logs there); wait for it to end or give another --out", dir, ErrHeld, holder)
			}
			return nil, fmt.Errorf("outlock: %s: %w", path, err)
		}
		// The holder before us may have removed the file between our open
		// and our lock: then the lock is on a file no one else can see.
		same, err := sameFile(f, path)
		if err != nil {
			unlock(f)
			f.Close()
			return nil, fmt.Errorf("outlock: %w", err)
		}
		if !same {
			unlock(f)
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return &Lock{f: f, path: path}, nil
	}
	return nil, fmt.Errorf("outlock: %s keeps changing under this process; is another run starting there?", path)
}

// Release removes the lock file and gives the lock up. It is idempotent.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	unlock(l.f)
	l.f.Close()
	l.f = nil
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return err
}

// readPID is the process id a holder wrote, or "unknown".
func readPID(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	s := strings.TrimSpace(string(b[:n]))
	if _, err := strconv.Atoi(s); err != nil {
		return "unknown"
	}
	return s
}

// sameFile reports whether f is still the file at path.
func sameFile(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}
