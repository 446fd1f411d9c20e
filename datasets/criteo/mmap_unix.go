//go:build unix

package criteo

import (
	"fmt"
	"os"
	"syscall"
)

// Mapping is a read-only view of a whole file. On Unix it is a shared
// memory mapping: pages are read on first touch and kept in the page
// cache, so files larger than memory work.
type Mapping struct {
	Data []byte
	mmap bool
}

// Map maps path read-only.
func Map(path string) (*Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return &Mapping{Data: []byte{}}, nil
	}
	if st.Size() != int64(int(st.Size())) {
		return nil, fmt.Errorf("%s: %d bytes do not fit the address space", path, st.Size())
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return &Mapping{Data: b, mmap: true}, nil
}

// Close unmaps the file; Data must not be used afterwards.
func (m *Mapping) Close() error {
	if m == nil || !m.mmap {
		return nil
	}
	m.mmap = false
	b := m.Data
	m.Data = nil
	return syscall.Munmap(b)
}
