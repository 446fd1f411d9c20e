package kserve

import (
	"fmt"
	"math/bits"
	"sync"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// grpcBuffers is the buffer pool both ends of the gRPC transport use for
// frames and whole messages. grpc-go's default pool (v1.68) zeroes every
// buffer it hands out, which for a ResNet50-sized message (602 kB) costs
// more CPU than the copies; grpc-go fills every buffer it gets before it
// reads it (io.ReadFull of a frame, a message marshalled into it), so this
// pool does not zero. Buffers come in power-of-two capacities from 256
// bytes to 64 MiB; larger ones are not pooled.
var grpcBuffers mem.BufferPool = &tieredPool{}

const (
	minPoolShift = 8
	maxPoolShift = 26
)

type tieredPool struct {
	tiers [maxPoolShift - minPoolShift + 1]sync.Pool
}

// tier is the index of the smallest tier holding n bytes (len(tiers) if
// none does).
func tier(n int) int {
	if n <= 1<<minPoolShift {
		return 0
	}
	return bits.Len(uint(n-1)) - minPoolShift
}

// Get implements mem.BufferPool: a buffer of length n, not zeroed.
func (p *tieredPool) Get(n int) *[]byte {
	k := tier(n)
	if k >= len(p.tiers) {
		b := make([]byte, n)
		return &b
	}
	if b, ok := p.tiers[k].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, 1<<(k+minPoolShift))
	return &b
}

// Put implements mem.BufferPool; buffers of a capacity not from Get are
// dropped.
func (p *tieredPool) Put(b *[]byte) {
	c := cap(*b)
	k := tier(c)
	if k >= len(p.tiers) || c != 1<<(k+minPoolShift) {
		return
	}
	p.tiers[k].Put(b)
}

// grpcCodec is the protobuf codec of both ends, over grpcBuffers (grpc-go's
// own proto codec takes its buffers from the zeroing default pool).
type grpcCodec struct{}

// Name implements encoding.CodecV2: the content subtype, "proto".
func (grpcCodec) Name() string { return "proto" }

// Marshal implements encoding.CodecV2.
func (grpcCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("kserve: gRPC codec: %T is not a protobuf message", v)
	}
	b := grpcBuffers.Get(proto.Size(m))
	out, err := proto.MarshalOptions{}.MarshalAppend((*b)[:0], m)
	if err != nil {
		grpcBuffers.Put(b)
		return nil, err
	}
	*b = out
	return mem.BufferSlice{mem.NewBuffer(b, grpcBuffers)}, nil
}

// Unmarshal implements encoding.CodecV2. The message copies what it keeps,
// so data's buffers go back to the pool at once.
func (grpcCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("kserve: gRPC codec: %T is not a protobuf message", v)
	}
	if len(data) == 1 {
		return proto.Unmarshal(data[0].ReadOnlyData(), m)
	}
	b := data.MaterializeToBuffer(grpcBuffers)
	defer b.Free()
	return proto.Unmarshal(b.ReadOnlyData(), m)
}

var _ encoding.CodecV2 = grpcCodec{}
