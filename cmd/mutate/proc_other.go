//go:build !unix

package main

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
)

// ownGroup leaves cmd as it is where process groups are not available.
func ownGroup(cmd *exec.Cmd) {}

// signalContext is cancelled by Ctrl-C.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}
