//go:build unix

package kserve

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user + system).
func cpuTime() time.Duration {
	u, s := cpuTimes()
	return u + s
}

// cpuTimes is the user and the system CPU time this process has used.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
