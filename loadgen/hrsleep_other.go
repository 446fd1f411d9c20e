//go:build !linux

package loadgen

import "time"

// hrSleeper is time.Sleep where the platform has no clock_nanosleep
// with a settable timer slack.
type hrSleeper struct{}

func newHRSleeper() *hrSleeper { return &hrSleeper{} }

func (*hrSleeper) sleep(d time.Duration) bool { time.Sleep(d); return true }

func (*hrSleeper) close() {}
