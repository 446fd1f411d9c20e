//go:build !unix

package boundedread

const nonBlock = 0
