// Package boundedread reads a file a person names (a conf file, a log)
// only when it is a regular file no larger than a bound: a device such
// as /dev/zero would be read without end, a named pipe (FIFO) would block
// the open until a writer comes, and a file of gigabytes where a few
// kilobytes are expected would fill the memory. The errors name the file,
// what it is and what to give instead.
package boundedread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular marks a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge marks a file over its bound.
var ErrTooLarge = errors.New("too large")

// File reads the regular file at path, at most max bytes; what names it
// for the messages (e.g. "--user-conf"). The file is opened without
// blocking (a FIFO is refused, not waited on) and checked on the open
// descriptor, so a path swapped after a check is caught too; a file that
// grows past max while it is read is refused as well.
func File(path, what string, max int64) ([]byte, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := Check(path, what, st, max); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s %s: %w: it grew past %d bytes while read", what, path, ErrTooLarge, max)
	}
	return b, nil
}

// Check refuses st (path's file information) unless it is a regular file
// of at most max bytes, saying what it is instead.
func Check(path, what string, st fs.FileInfo, max int64) error {
	m := st.Mode()
	if !m.IsRegular() {
		return fmt.Errorf("%s %s is %s, %w; give a file", what, path, kind(m), ErrNotRegular)
	}
	if st.Size() > max {
		return fmt.Errorf("%s %s: %w: it is %d bytes, and such a file is at most %d; is it the right file?", what, path, ErrTooLarge, st.Size(), max)
	}
	return nil
}

// kind names a non-regular file mode for a person.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device (such as /dev/zero)"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// openNonBlocking opens path for reading without waiting for a FIFO's
// writer.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
}
