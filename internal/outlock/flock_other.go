//go:build !unix

package outlock

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("would block")

// tryLock takes no lock where flock is not available.
func tryLock(*os.File) error { return nil }

func unlock(*os.File) {}
