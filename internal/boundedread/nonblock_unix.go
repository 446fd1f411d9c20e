//go:build unix

package boundedread

import "syscall"

const nonBlock = syscall.O_NONBLOCK
