package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"testing"
)

// reader is a minimal GGUF reader for the round trip.
type reader struct {
	r   *bytes.Reader
	err error
}

func (r *reader) u32() uint32 { var v uint32; r.read(&v); return v }
func (r *reader) u64() uint64 { var v uint64; r.read(&v); return v }
func (r *reader) read(v any) {
	if err := binary.Read(r.r, binary.LittleEndian, v); err != nil && r.err == nil {
		r.err = err
	}
}
func (r *reader) str() string {
	n := r.u64()
	if n > 1<<20 {
		r.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	b := make([]byte, n)
	io.ReadFull(r.r, b)
	return string(b)
}

func (r *reader) value(typ uint32) any {
	switch typ {
	case typeUint32:
		return r.u32()
	case typeInt32:
		return int32(r.u32())
	case typeFloat32:
		return math.Float32frombits(r.u32())
	case typeBool:
		var b uint8
		r.read(&b)
		return b == 1
	case typeString:
		return r.str()
	case typeUint64:
		return r.u64()
	case typeArray:
		et, n := r.u32(), r.u64()
		out := make([]any, n)
		for i := range out {
			out[i] = r.value(et)
		}
		return out
	}
	r.err = fmt.Errorf("type %d", typ)
	return nil
}

type vocab []string

func (v vocab) VocabSize() int        { return len(v) }
func (v vocab) Piece(id int32) string { return v[id] }

func TestLlamaRoundTrip(t *testing.T) {
	v := vocab{"<unk>", "<s>", "</s>", "<0x0A>", "▁the", "▁a"}
	c := LlamaConfig{Dim: 8, Layers: 1, Heads: 2, KVHeads: 1, FF: 12, Context: 64, NormEps: 1e-6}
	f, err := Llama(c, v, 7)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := f.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v (buffer %d)", n, err, buf.Len())
	}
	r := &reader{r: bytes.NewReader(buf.Bytes())}
	magic := make([]byte, 4)
	io.ReadFull(r.r, magic)
	if string(magic) != "GGUF" || r.u32() != 3 {
		t.Fatal("bad header")
	}
	nt, nkv := r.u64(), r.u64()
	kvs := map[string]any{}
	for range nkv {
		k := r.str()
		kvs[k] = r.value(r.u32())
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if kvs["general.architecture"] != "llama" || kvs["llama.vocab_size"] != uint32(6) || kvs["llama.attention.head_count_kv"] != uint32(1) {
		t.Errorf("metadata %v", kvs)
	}
	types := kvs["tokenizer.ggml.token_type"].([]any)
	scores := kvs["tokenizer.ggml.scores"].([]any)
	wantTypes := []int32{2, 3, 3, 6, 1, 1}
	for i, w := range wantTypes {
		if types[i] != w {
			t.Errorf("token %d type %v, want %d", i, types[i], w)
		}
	}
	if scores[5] != float32(-5) || scores[3] != float32(0) {
		t.Errorf("scores %v", scores)
	}
	// Tensor infos: offsets aligned and increasing, sizes as the shapes say.
	want := 2 + 9*c.Layers + 1
	if int(nt) != want {
		t.Fatalf("%d tensors, want %d", nt, want)
	}
	var end uint64
	for range nt {
		name := r.str()
		nd := r.u32()
		ne := make([]uint64, nd)
		r.read(ne)
		if typ := r.u32(); typ != 0 {
			t.Errorf("%s: type %d", name, typ)
		}
		off := r.u64()
		if off%Alignment != 0 || off < end {
			t.Errorf("%s: offset %d (previous end %d)", name, off, end)
		}
		size := uint64(4)
		for _, d := range ne {
			size *= d
		}
		end = off + size
		if name == "blk.0.attn_k.weight" && (ne[0] != 8 || ne[1] != 4) {
			t.Errorf("attn_k dims %v, want [8 4] (dim × kv heads · head dim)", ne)
		}
	}
	hdr := int64(buf.Len()) - int64(r.r.Len())
	dataStart := pad(uint64(hdr))
	if uint64(buf.Len()) != dataStart+pad(end) && uint64(buf.Len()) < dataStart+end {
		t.Errorf("file is %d bytes, data ends at %d", buf.Len(), dataStart+end)
	}
}

func TestRefusesBadShapes(t *testing.T) {
	if _, err := Llama(LlamaConfig{Dim: 10, Layers: 1, Heads: 3, KVHeads: 1, FF: 4}, vocab{"a", "b", "c"}, 1); err == nil {
		t.Error("dim not divisible by heads accepted")
	}
	f := &File{}
	f.Tensor("x", []uint64{2, 2}, []float32{1})
	if _, err := f.WriteTo(io.Discard); err == nil {
		t.Error("tensor with wrong value count written")
	}
}
