//go:build linux

package loadgen

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// hrSleeper sleeps with the kernel's high-resolution timers: a timerfd
// read through the runtime's network poller. time.Sleep cannot do this
// below a millisecond: an idle Go scheduler blocks in epoll_wait, whose
// timeout is in whole milliseconds, so a 100 µs sleep lasts about 1 ms.
// A timerfd wakes the poller when it fires (tens of µs late), and the
// waiting goroutine holds neither a P nor a thread meanwhile. It is used
// by one goroutine at a time.
type hrSleeper struct {
	fd  int
	f   *os.File
	buf [8]byte
}

// newHRSleeper returns a sleeper, or nil where no timerfd can be made
// (the caller then uses time.Sleep).
func newHRSleeper() *hrSleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &hrSleeper{fd: fd, f: os.NewFile(uintptr(fd), "loadgen-timerfd")}
}

// sleep waits about d (d > 0).
func (s *hrSleeper) sleep(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if unix.TimerfdSettime(s.fd, 0, &spec, nil) != nil {
		time.Sleep(d)
		return
	}
	if _, err := s.f.Read(s.buf[:]); err != nil {
		time.Sleep(d)
	}
}

// close releases the timerfd.
func (s *hrSleeper) close() { s.f.Close() }
