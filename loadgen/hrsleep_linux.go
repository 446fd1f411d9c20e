//go:build linux

package loadgen

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// hrSleeper sleeps the calling goroutine's thread with clock_nanosleep
// at 1 ns timer slack. time.Sleep cannot wait less than about a
// millisecond (an idle Go scheduler blocks in epoll_wait, whose timeout
// is in whole milliseconds). A timerfd read through the netpoller (the
// issuer's earlier sleeper) costs about the same CPU per sleep, but its
// wake-up comes through whichever thread polls the network, and when
// every P is busy the woken goroutine waits in a run queue; a thread
// asleep in clock_nanosleep keeps its P (the runtime takes it only when
// other goroutines wait for one) and runs on at once. A thread's default
// timer slack (50 µs) would make every nanosleep end up to 50 µs late,
// so the sleeper locks the goroutine to its thread and sets that
// thread's slack to 1 ns until close.
//
// The sleeper also asks the scheduler for a short time slice for the
// thread (sched_setattr's sched_runtime, which Linux 6.12 and later
// honour for ordinary tasks, unprivileged): EEVDF then lets the thread
// preempt a running task as soon as it wakes instead of waiting for that
// task's slice (up to a few ms) to end, so queries still go out on time
// when other processes keep every core busy. The issuer runs only a few
// µs per wake-up, well within such a slice. Older kernels ignore it.
//
// newHRSleeper and close must be called from the same goroutine, the
// only one that uses the sleeper.
type hrSleeper struct {
	slack int             // the thread's timer slack before, to restore
	sched *unix.SchedAttr // the thread's scheduling attributes before; nil if unchanged
}

// issuerSlice is the time slice the issuing thread asks for, in ns: the
// shortest Linux accepts.
const issuerSlice = 100_000

// newHRSleeper returns a sleeper (never nil on Linux).
func newHRSleeper() *hrSleeper {
	runtime.LockOSThread()
	s := &hrSleeper{slack: -1}
	if old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil {
		if unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) == nil {
			s.slack = old
		}
	}
	if old, err := unix.SchedGetAttr(0, 0); err == nil && old.Policy == unix.SCHED_NORMAL {
		short := *old
		short.Runtime = issuerSlice
		if unix.SchedSetAttr(0, &short, 0) == nil {
			s.sched = old
		}
	}
	return s
}

// sleep waits about d (d > 0). It reports false when a signal (such as
// the runtime's preemption signal) ended it early.
func (s *hrSleeper) sleep(d time.Duration) bool {
	ts := unix.NsecToTimespec(int64(d))
	return unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil) == nil
}

// close restores the thread's timer slack and unlocks the goroutine.
func (s *hrSleeper) close() {
	if s.slack >= 0 {
		unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(s.slack), 0, 0, 0)
	}
	if s.sched != nil {
		// Runtime 0 is the default slice (a read-back slice would pin
		// today's default as the thread's own).
		def := *s.sched
		def.Runtime = 0
		unix.SchedSetAttr(0, &def, 0)
	}
	runtime.UnlockOSThread()
}
