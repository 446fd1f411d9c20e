package spec

import (
	"errors"
	"fmt"
)

// ErrUsage marks an error caused by how a benchmark was asked to run (a
// flag's value, a missing required flag) rather than by the model, the
// data or the machine; the mlperf command exits with status 2 on it.
// Test with errors.Is.
var ErrUsage = errors.New("usage")

// usageError prints as its message alone and matches ErrUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

// UsageError returns an error formatted as fmt.Sprintf does that matches
// ErrUsage.
func UsageError(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}
