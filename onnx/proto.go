package onnx

import (
	"encoding/binary"
	"io"
	"math"
)

// This file is a minimal protocol-buffers wire-format encoder, enough for the
// ONNX messages this package writes. A message is built as a list of
// segments: encoded bytes, and "payload" segments whose bytes come from a
// tensor data source at write time. Sizes of every segment are known when the
// segment is added, so length prefixes can be written without materialising
// payloads, and a multi-gigabyte model streams to disk in bounded memory.

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// segment is either literal bytes (b) or a payload of n bytes produced by src.
type segment struct {
	b   []byte
	src *Tensor
	n   int64
}

// msg is a message under construction.
type msg struct {
	segs []segment
	size int64
}

// lit returns the literal tail segment, creating one if needed.
func (m *msg) lit() *segment {
	if len(m.segs) == 0 || m.segs[len(m.segs)-1].src != nil {
		m.segs = append(m.segs, segment{})
	}
	return &m.segs[len(m.segs)-1]
}

func (m *msg) raw(b []byte) {
	s := m.lit()
	s.b = append(s.b, b...)
	m.size += int64(len(b))
}

func (m *msg) varint(v uint64) {
	var buf [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(buf[:], v)
	m.raw(buf[:n])
}

func (m *msg) tag(field int, wire int) { m.varint(uint64(field)<<3 | uint64(wire)) }

// int64Field writes a varint field (int64 and int32 enums use the same
// two's-complement varint encoding).
func (m *msg) int64Field(field int, v int64) {
	m.tag(field, wireVarint)
	m.varint(uint64(v))
}

func (m *msg) float32Field(field int, v float32) {
	m.tag(field, wireFixed32)
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
	m.raw(b[:])
}

func (m *msg) bytesField(field int, b []byte) {
	m.tag(field, wireBytes)
	m.varint(uint64(len(b)))
	m.raw(b)
}

func (m *msg) stringField(field int, s string) { m.bytesField(field, []byte(s)) }

// packedInt64s writes a packed repeated varint field (accepted by every
// protobuf parser for proto2 repeated scalars).
func (m *msg) packedInt64s(field int, v []int64) {
	if len(v) == 0 {
		return
	}
	var inner msg
	for _, x := range v {
		inner.varint(uint64(x))
	}
	m.message(field, &inner)
}

// packedFloat32s writes a packed repeated fixed32 field.
func (m *msg) packedFloat32s(field int, v []float32) {
	if len(v) == 0 {
		return
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	m.bytesField(field, b)
}

// message embeds sub as a length-delimited field. sub must not be changed
// afterwards.
func (m *msg) message(field int, sub *msg) {
	m.tag(field, wireBytes)
	m.varint(uint64(sub.size))
	for _, s := range sub.segs {
		if s.src != nil {
			m.segs = append(m.segs, s)
			m.size += s.n
		} else {
			m.raw(s.b)
		}
	}
}

// payload appends a length-delimited field whose n bytes are produced by t.
func (m *msg) payload(field int, t *Tensor, n int64) {
	m.tag(field, wireBytes)
	m.varint(uint64(n))
	m.segs = append(m.segs, segment{src: t, n: n})
	m.size += n
}

// writeTo streams the message to w.
func (m *msg) writeTo(w io.Writer) error {
	for _, s := range m.segs {
		if s.src != nil {
			if err := s.src.writeRaw(w); err != nil {
				return err
			}
			continue
		}
		if _, err := w.Write(s.b); err != nil {
			return err
		}
	}
	return nil
}
