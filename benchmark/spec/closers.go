package spec

// Closers collects the close funcs of what a Driver's Open has opened so
// far, for Instance.Close, and for Open itself to undo when a later step
// fails.
type Closers []func() error

// Add appends f; Close calls it before those added earlier.
func (c *Closers) Add(f func() error) { *c = append(*c, f) }

// Close calls every func added so far, the last added first, and returns
// the first error (in that order). Take it as a method value (cl.Close)
// only of an addressable Closers, so that later Adds are seen.
func (c *Closers) Close() error {
	var first error
	for i := len(*c) - 1; i >= 0; i-- {
		if err := (*c)[i](); err != nil && first == nil {
			first = err
		}
	}
	return first
}
