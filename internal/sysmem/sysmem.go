// Package sysmem reports the machine's memory, for refusing sizes that
// cannot fit before they are allocated.
package sysmem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Total returns the machine's total memory in bytes from /proc/meminfo,
// or 0 where that cannot be read (not Linux).
func Total() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// Budget is the memory one process may plan to use: half of Total, or
// 8 GiB where Total cannot be read.
func Budget() uint64 {
	if t := Total(); t > 0 {
		return t / 2
	}
	return 8 << 30
}
