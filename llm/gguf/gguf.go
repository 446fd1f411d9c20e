// Package gguf writes GGUF v3 files, the model format of llama.cpp and of
// the engines built on it (ollama), so the project can hand a real serving
// engine a tiny Llama-architecture model with seeded weights and the real
// Llama 2 vocabulary, and drive it as a remote SUT.
//
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md.
// Little-endian throughout: magic "GGUF", uint32 version 3, uint64 tensor
// count, uint64 metadata count, the metadata key/values, the tensor infos,
// padding to the alignment, then the tensor data, each tensor aligned.
package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Metadata value types.
const (
	typeUint32  = 4
	typeInt32   = 5
	typeFloat32 = 6
	typeBool    = 7
	typeString  = 8
	typeArray   = 9
	typeUint64  = 10
)

// Alignment is the data alignment this writer uses (general.alignment).
const Alignment = 32

// File is a GGUF file being assembled in memory: metadata and float32
// tensors, written in the order added. It is not safe for concurrent use.
type File struct {
	kvs     []kv
	tensors []tensor
	err     error
}

type kv struct {
	key string
	typ uint32
	val any
}

type tensor struct {
	name string
	ne   []uint64 // ne[0] is the fastest-varying axis
	data []float32
}

// Uint32 adds a uint32 metadata value.
func (f *File) Uint32(key string, v uint32) { f.kvs = append(f.kvs, kv{key, typeUint32, v}) }

// Float32 adds a float32 metadata value.
func (f *File) Float32(key string, v float32) { f.kvs = append(f.kvs, kv{key, typeFloat32, v}) }

// Bool adds a bool metadata value.
func (f *File) Bool(key string, v bool) { f.kvs = append(f.kvs, kv{key, typeBool, v}) }

// String adds a string metadata value.
func (f *File) String(key, v string) { f.kvs = append(f.kvs, kv{key, typeString, v}) }

// Strings adds an array of strings.
func (f *File) Strings(key string, v []string) { f.kvs = append(f.kvs, kv{key, typeArray, v}) }

// Float32s adds an array of float32.
func (f *File) Float32s(key string, v []float32) { f.kvs = append(f.kvs, kv{key, typeArray, v}) }

// Int32s adds an array of int32.
func (f *File) Int32s(key string, v []int32) { f.kvs = append(f.kvs, kv{key, typeArray, v}) }

// Tensor adds a float32 tensor of dimensions ne (ne[0] fastest). data is
// kept, not copied, until WriteTo.
func (f *File) Tensor(name string, ne []uint64, data []float32) {
	n := uint64(1)
	for _, d := range ne {
		n *= d
	}
	if n != uint64(len(data)) && f.err == nil {
		f.err = fmt.Errorf("gguf: tensor %s: %d values for dimensions %v", name, len(data), ne)
	}
	f.tensors = append(f.tensors, tensor{name, append([]uint64(nil), ne...), data})
}

type counter struct {
	w *bufio.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteTo writes the file. It returns the bytes written.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if f.err != nil {
		return 0, f.err
	}
	c := &counter{w: bufio.NewWriterSize(w, 1<<20)}
	le := binary.LittleEndian
	put := func(v any) { binary.Write(c, le, v) }
	str := func(s string) {
		put(uint64(len(s)))
		io.WriteString(c, s)
	}
	c.Write([]byte("GGUF"))
	put(uint32(3))
	put(uint64(len(f.tensors)))
	put(uint64(len(f.kvs)))
	for _, e := range f.kvs {
		str(e.key)
		put(e.typ)
		switch v := e.val.(type) {
		case string:
			str(v)
		case bool:
			b := uint8(0)
			if v {
				b = 1
			}
			put(b)
		case []string:
			put(uint32(typeString))
			put(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []float32:
			put(uint32(typeFloat32))
			put(uint64(len(v)))
			put(v)
		case []int32:
			put(uint32(typeInt32))
			put(uint64(len(v)))
			put(v)
		default:
			put(v)
		}
	}
	off := uint64(0)
	for _, t := range f.tensors {
		str(t.name)
		put(uint32(len(t.ne)))
		put(t.ne)
		put(uint32(0)) // F32
		put(off)
		off += pad(uint64(4 * len(t.data)))
	}
	zeros := make([]byte, Alignment)
	c.Write(zeros[:pad(uint64(c.n))-uint64(c.n)])
	for _, t := range f.tensors {
		buf := make([]byte, 4*len(t.data))
		for i, x := range t.data {
			le.PutUint32(buf[4*i:], math.Float32bits(x))
		}
		c.Write(buf)
		c.Write(zeros[:pad(uint64(len(buf)))-uint64(len(buf))])
	}
	if err := c.w.Flush(); err != nil {
		return c.n, fmt.Errorf("gguf: %w", err)
	}
	return c.n, nil
}

func pad(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }

// WriteFile writes f to path through a temporary file in the same folder,
// so that a failed write leaves nothing under the final name.
func WriteFile(path string, f *File) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := f.WriteTo(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	return nil
}
