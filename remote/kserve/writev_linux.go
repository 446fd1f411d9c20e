package kserve

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// writeBuffers writes bufs to c in as few writev calls as the socket
// takes. On a TCP connection the call is made without handing the
// goroutine's processor to another thread while the kernel copies (a
// raw system call on the non-blocking socket: it copies what fits in the
// send buffer and returns, never sleeps; a full buffer waits in the
// network poller as any write does). The Go runtime otherwise treats the
// copy of a large request (some 80 µs for 602 kB) as a blocking call and
// wakes another thread to run the processor, which costs more CPU than
// the copy saves. (The price: the processor is held for the copy, and a
// stop of the world waits for it, some 100 µs at most.) Elsewhere (TLS)
// it is net.Buffers' write.
func writeBuffers(c net.Conn, bufs [][]byte) error {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		nb := net.Buffers(bufs)
		_, err := nb.WriteTo(c)
		return err
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return err
	}
	var iov [8]unix.Iovec
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for len(bufs) > 0 {
			n := 0
			for _, b := range bufs {
				if n == len(iov) {
					break
				}
				if len(b) == 0 {
					continue
				}
				iov[n].Base = &b[0]
				iov[n].SetLen(len(b))
				n++
			}
			if n == 0 {
				return true
			}
			w, _, e := unix.RawSyscall(unix.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&iov[0])), uintptr(n))
			switch {
			case e == syscall.EAGAIN:
				return false // wait until writable
			case e == syscall.EINTR:
				continue
			case e != 0:
				werr = e
				return true
			}
			// Drop what was written.
			for w > 0 && len(bufs) > 0 {
				if int(w) >= len(bufs[0]) {
					w -= uintptr(len(bufs[0]))
					bufs = bufs[1:]
				} else {
					bufs[0] = bufs[0][w:]
					w = 0
				}
			}
		}
		return true
	})
	if werr != nil {
		return &net.OpError{Op: "writev", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: werr}
	}
	return err
}
