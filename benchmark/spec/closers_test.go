package spec

import (
	"errors"
	"slices"
	"testing"
)

// Close calls the funcs last added first, every one even after an error,
// and returns the first error met; a method value taken before later
// Adds sees them.
func TestClosersReverseOrderFirstError(t *testing.T) {
	var order []int
	e2, e3 := errors.New("two"), errors.New("three")
	var cl Closers
	closeAll := cl.Close
	cl.Add(func() error { order = append(order, 1); return nil })
	cl.Add(func() error { order = append(order, 2); return e2 })
	cl.Add(func() error { order = append(order, 3); return e3 })
	if err := closeAll(); err != e3 || !slices.Equal(order, []int{3, 2, 1}) {
		t.Errorf("Close: %v, order %v; want three and [3 2 1]", err, order)
	}
	var none Closers
	if err := none.Close(); err != nil {
		t.Errorf("empty Close: %v", err)
	}
}
