//go:build !linux

package kserve

import "net"

// writeBuffers writes bufs to c with net.Buffers (one writev where the
// platform has it).
func writeBuffers(c net.Conn, bufs [][]byte) error {
	nb := net.Buffers(bufs)
	_, err := nb.WriteTo(c)
	return err
}
