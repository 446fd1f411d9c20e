//go:build !unix

package kserve

import "time"

// cpuTime is not measured here: 0.
func cpuTime() time.Duration { return 0 }

// cpuTimes is not measured here: 0, 0.
func cpuTimes() (user, sys time.Duration) { return 0, 0 }
