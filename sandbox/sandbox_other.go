//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
)

var getenv = os.Getenv

// Sandbox runs programs in folders of their own; it needs Linux.
type Sandbox struct{}

// Folder is one program's temporary folder.
type Folder struct{}

// New fails: the sandbox needs Linux namespaces and resource limits.
func New(Config) (*Sandbox, error) {
	return nil, fmt.Errorf("%w: the sandbox needs Linux", ErrUnavailable)
}

// Isolation reports nothing off Linux.
func (s *Sandbox) Isolation() Isolation { return Isolation{} }

// Look fails off Linux.
func (s *Sandbox) Look(name string) (string, error) {
	return "", fmt.Errorf("%w: the sandbox needs Linux", ErrUnavailable)
}

// NewFolder fails off Linux.
func (s *Sandbox) NewFolder(map[string][]byte) (*Folder, error) {
	return nil, fmt.Errorf("%w: the sandbox needs Linux", ErrUnavailable)
}

// Run fails off Linux.
func (s *Sandbox) Run(context.Context, map[string][]byte, Step) (Result, error) {
	return Result{}, fmt.Errorf("%w: the sandbox needs Linux", ErrUnavailable)
}

// Path is empty off Linux.
func (f *Folder) Path() string { return "" }

// Exec fails off Linux.
func (f *Folder) Exec(context.Context, Step) (Result, error) {
	return Result{}, fmt.Errorf("%w: the sandbox needs Linux", ErrUnavailable)
}

// Close does nothing off Linux.
func (f *Folder) Close() error { return nil }

// Close does nothing off Linux.
func (s *Sandbox) Close() error { return nil }

func (s *Sandbox) seedCache(*Folder, string) {}
func (s *Sandbox) keepCache(*Folder, string) {}
