//go:build !unix

package criteo

import "os"

// Mapping is a read-only view of a whole file. Without mmap it is the
// file read into memory.
type Mapping struct {
	Data []byte
}

// Map reads path into memory.
func Map(path string) (*Mapping, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Mapping{Data: b}, nil
}

// Close releases the data.
func (m *Mapping) Close() error {
	if m != nil {
		m.Data = nil
	}
	return nil
}
