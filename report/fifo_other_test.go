//go:build !unix

package report

import "testing"

func mkfifo(t *testing.T, path string) { t.Skip("named pipes are a unix test") }
