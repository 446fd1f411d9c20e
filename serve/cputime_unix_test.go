//go:build unix

package serve

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user + system): all of
// loadgen, client and server, as they share the process in the
// benchmarks.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
