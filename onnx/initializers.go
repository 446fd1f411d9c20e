package onnx

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// TensorInfo is an initializer of a model file as ReadInitializers
// reports it: its name and dimensions, not its values.
type TensorInfo struct {
	Name string
	Dims []int64
}

// ReadInitializers lists the initializers of the ONNX model file at path
// (ModelProto.graph.initializer) by name and dimensions, streaming the
// file and seeking over weight data, so a model of gigabytes is read in
// a few reads. It is for checking a model's architecture (how many
// experts, which widths) before it is run.
func ReadInitializers(path string) ([]TensorInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	r := &pbReader{f: f, br: bufio.NewReaderSize(f, 64<<10), left: st.Size()}
	var out []TensorInfo
	for r.left > 0 {
		num, typ, err := r.tag()
		if err != nil {
			return nil, fmt.Errorf("onnx: %s: %w", path, err)
		}
		if num == 7 && typ == protowire.BytesType { // ModelProto.graph
			n, err := r.length()
			if err != nil {
				return nil, fmt.Errorf("onnx: %s: %w", path, err)
			}
			if out, err = r.graph(n, out); err != nil {
				return nil, fmt.Errorf("onnx: %s: %w", path, err)
			}
			continue
		}
		if err := r.skip(typ); err != nil {
			return nil, fmt.Errorf("onnx: %s: %w", path, err)
		}
	}
	return out, nil
}

// errProto reports a file that is not a well-formed ModelProto.
var errProto = errors.New("not an ONNX model (malformed protobuf)")

// pbReader reads protobuf wire data from a file, seeking over long
// fields; left is the bytes not yet consumed.
type pbReader struct {
	f    *os.File
	br   *bufio.Reader
	left int64
}

func (r *pbReader) varint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if r.left <= 0 {
			return 0, errProto
		}
		b, err := r.br.ReadByte()
		if err != nil {
			return 0, errProto
		}
		r.left--
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errProto
}

func (r *pbReader) tag() (protowire.Number, protowire.Type, error) {
	v, err := r.varint()
	if err != nil {
		return 0, 0, err
	}
	num, typ := protowire.DecodeTag(v)
	if num < 1 {
		return 0, 0, errProto
	}
	return num, typ, nil
}

// length reads a length prefix that fits in what is left.
func (r *pbReader) length() (int64, error) {
	v, err := r.varint()
	if err != nil || v > uint64(r.left) {
		return 0, errProto
	}
	return int64(v), nil
}

// discard drops n bytes, seeking when they are not buffered.
func (r *pbReader) discard(n int64) error {
	if n > r.left {
		return errProto
	}
	if b := int64(r.br.Buffered()); n > b {
		if _, err := r.f.Seek(n-b, io.SeekCurrent); err != nil {
			return err
		}
		r.br.Reset(r.f)
	} else if _, err := r.br.Discard(int(n)); err != nil {
		return errProto
	}
	r.left -= n
	return nil
}

func (r *pbReader) bytes(n int64) ([]byte, error) {
	if n > r.left || n > 1<<20 {
		return nil, errProto
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.br, b); err != nil {
		return nil, errProto
	}
	r.left -= n
	return b, nil
}

// skip drops the value of a field of wire type typ.
func (r *pbReader) skip(typ protowire.Type) error {
	switch typ {
	case protowire.VarintType:
		_, err := r.varint()
		return err
	case protowire.Fixed32Type:
		return r.discard(4)
	case protowire.Fixed64Type:
		return r.discard(8)
	case protowire.BytesType:
		n, err := r.length()
		if err != nil {
			return err
		}
		return r.discard(n)
	}
	return errProto
}

// graph reads a GraphProto of n bytes, appending its initializers.
func (r *pbReader) graph(n int64, out []TensorInfo) ([]TensorInfo, error) {
	end := r.left - n
	for r.left > end {
		num, typ, err := r.tag()
		if err != nil {
			return nil, err
		}
		if num == 5 && typ == protowire.BytesType { // GraphProto.initializer
			m, err := r.length()
			if err != nil {
				return nil, err
			}
			t, err := r.tensor(m)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
			continue
		}
		if err := r.skip(typ); err != nil {
			return nil, err
		}
	}
	if r.left != end {
		return nil, errProto
	}
	return out, nil
}

// tensor reads the name and dims of a TensorProto of n bytes.
func (r *pbReader) tensor(n int64) (TensorInfo, error) {
	var t TensorInfo
	end := r.left - n
	for r.left > end {
		num, typ, err := r.tag()
		if err != nil {
			return t, err
		}
		switch {
		case num == 1 && typ == protowire.VarintType: // dims, unpacked
			v, err := r.varint()
			if err != nil {
				return t, err
			}
			t.Dims = append(t.Dims, int64(v))
		case num == 1 && typ == protowire.BytesType: // dims, packed
			m, err := r.length()
			if err != nil {
				return t, err
			}
			stop := r.left - m
			for r.left > stop {
				v, err := r.varint()
				if err != nil {
					return t, err
				}
				t.Dims = append(t.Dims, int64(v))
			}
		case num == 8 && typ == protowire.BytesType: // name
			m, err := r.length()
			if err != nil {
				return t, err
			}
			b, err := r.bytes(m)
			if err != nil {
				return t, err
			}
			t.Name = string(b)
		default:
			if err := r.skip(typ); err != nil {
				return t, err
			}
		}
	}
	if r.left != end {
		return t, errProto
	}
	return t, nil
}
