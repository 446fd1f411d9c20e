//go:build !linux

package loadgen

import "time"

// hrSleeper is time.Sleep where the platform has no timerfd.
type hrSleeper struct{}

func newHRSleeper() *hrSleeper { return &hrSleeper{} }

func (*hrSleeper) sleep(d time.Duration) { time.Sleep(d) }

func (*hrSleeper) close() {}
