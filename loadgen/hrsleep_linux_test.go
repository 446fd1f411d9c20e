//go:build linux

package loadgen

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHRSleeperTunesOnlyItsThreadWhileOpen: the sleeper sets its
// thread's timer slack to 1 ns (and, where the kernel takes a custom
// slice, the slice to issuerSlice) while open, and puts both back on
// close, so the runtime's thread is not left changed.
func TestHRSleeperTunesOnlyItsThreadWhileOpen(t *testing.T) {
	runtime.LockOSThread() // keep this goroutine on one thread across open and close
	defer runtime.UnlockOSThread()
	slack0, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		t.Skipf("no timer slack: %v", err)
	}
	s := newHRSleeper()
	if got, _ := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); got != 1 {
		t.Errorf("timer slack while open: %d ns, want 1", got)
	}
	if s.sched != nil {
		if a, err := unix.SchedGetAttr(0, 0); err != nil || a.Runtime != issuerSlice {
			t.Errorf("slice while open: %+v %v, want %d ns", a, err, issuerSlice)
		}
	}
	s.close()
	if got, _ := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); got != slack0 {
		t.Errorf("timer slack after close: %d ns, want %d", got, slack0)
	}
	if s.sched != nil {
		if a, err := unix.SchedGetAttr(0, 0); err != nil || a.Runtime == issuerSlice {
			t.Errorf("slice after close: %+v %v; want the default back", a, err)
		}
	}
}
