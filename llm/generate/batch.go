package generate

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/onnx"
)

type elem interface{ float32 | uint16 }

// state is the decode state of a batch of rows, whatever the cache type.
// Row r of the batch is a left-padded sequence whose real tokens start at
// column start[r] of the T cache columns.
type state interface {
	// prefill resets the batch to len(seqs) rows and runs the sequences,
	// left-padded to the longest, with an empty cache.
	prefill(ctx context.Context, seqs [][]int32) error
	// step feeds one token per row.
	step(ctx context.Context, tok []int32) error
	// keep makes the batch rows src[0], src[1], … of the current one (a
	// row may repeat: beams forking from one parent; rows left out are
	// dropped), compacting columns no kept row uses.
	keep(src []int) error
	// last returns the last-position logits of each row (float32, owned by
	// the state and writable by the caller, valid until the next call).
	last() [][]float32
	// merge appends the rows of o (a state of the same model, left
	// untouched) to the batch, both right-aligned to the longer cache.
	merge(o state) error
	// reserve empties the batch and sets the columns to reserve when a
	// buffer grows.
	reserve(capT int)
}

// newState returns a state from the model's pool (buffers of an earlier
// call reused) or a new one; capT is the number of columns to reserve.
func (m *Model) newState(capT int) state {
	if st, ok := m.states.Get().(state); ok {
		st.reserve(capT)
		return st
	}
	if m.cacheType == backend.Float16 {
		return newBatch[uint16](m, capT)
	}
	return newBatch[float32](m, capT)
}

// putState returns st to the pool; st must not be used afterwards.
func (m *Model) putState(st state) { m.states.Put(st) }

func (b *batch[E]) reserve(capT int) {
	b.capT = capT
	b.n, b.T = 0, 0
	b.start = b.start[:0]
}

type batch[E elem] struct {
	m     *Model
	n     int   // rows
	T     int   // cache columns
	start []int // per row: first real column
	cur   [][]E // per past input: [n, KVHeads, T, HeadDim] in the first n*H*T*D elements
	spare [][]E
	capT  int // columns to reserve when a buffer grows
	dummy bool

	// keep's scratch: the new starts and the in-place gather's plan
	startTmp              []int
	readers, saved, ready []int
	written               []bool
	moves                 []move

	ids, mask, pos []int64
	i32            [3][]int32
	logits         any // []float32 or []uint16 output buffer
	lastRows       [][]float32
	lastBuf        []float32
	in, out        []backend.Tensor
}

func newBatch[E elem](m *Model, capT int) *batch[E] {
	var z E
	_, half := any(z).(uint16)
	return &batch[E]{
		m:     m,
		cur:   make([][]E, len(m.past)),
		spare: make([][]E, len(m.past)),
		capT:  capT,
		// ONNX Runtime through backend/ort cannot bind an empty float16
		// tensor, so a float16 cache starts with one zero column that
		// every row masks.
		dummy: half && len(m.past) > 0,
	}
}

func (b *batch[E]) last() [][]float32 { return b.lastRows }

func (b *batch[E]) hd() int { return b.m.spec.KVHeads * b.m.spec.HeadDim }

// ensure returns buf with length need, reallocating (contents dropped) when
// its capacity is short.
func (b *batch[E]) ensure(buf []E, need, rows int) []E {
	if cap(buf) >= need {
		return buf[:need]
	}
	c := max(need, rows*b.hd()*b.capT)
	return make([]E, need, c)
}

func (b *batch[E]) prefill(ctx context.Context, seqs [][]int32) error {
	n := len(seqs)
	S := 0
	for _, s := range seqs {
		S = max(S, len(s))
	}
	b.n, b.T = n, 0
	if b.dummy {
		b.T = 1
	}
	b.start = append(b.start[:0], make([]int, n)...)
	for i := range b.cur {
		b.cur[i] = b.ensure(b.cur[i], n*b.hd()*b.T, n)
		clear(b.cur[i])
	}
	tok := make([]int32, n*S)
	for r, s := range seqs {
		pad := S - len(s)
		for j := range pad {
			tok[r*S+j] = b.m.spec.PadID
		}
		copy(tok[r*S+pad:], s)
		b.start[r] = b.T + pad
	}
	return b.run(ctx, tok, S)
}

func (b *batch[E]) step(ctx context.Context, tok []int32) error {
	if len(tok) != b.n {
		return fmt.Errorf("%w: %d tokens for %d rows", ErrBadInput, len(tok), b.n)
	}
	return b.run(ctx, tok, 1)
}

// run feeds S tokens per row (tok is [n, S]) after the T cached columns.
func (b *batch[E]) run(ctx context.Context, tok []int32, S int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	m, n, T := b.m, b.n, b.T
	nT := T + S
	V := m.spec.Vocab
	b.ids = resize(b.ids, n*S)
	b.pos = resize(b.pos, n*S)
	b.mask = resize(b.mask, n*nT)
	for r := range n {
		st := b.start[r]
		for c := range nT {
			var v int64
			if c >= st {
				v = 1
			}
			b.mask[r*nT+c] = v
		}
		for s := range S {
			b.ids[r*S+s] = int64(tok[r*S+s])
			p := int64(T + s - st)
			if p < 0 {
				p = 1
			}
			b.pos[r*S+s] = p
		}
	}
	b.in = b.in[:0]
	b.in = append(b.in, b.intTensor(0, InputIDs, m.idType, []int64{int64(n), int64(S)}, b.ids))
	b.in = append(b.in, b.intTensor(1, AttentionMask, m.maskType, []int64{int64(n), int64(nT)}, b.mask))
	if m.posType != 0 {
		b.in = append(b.in, b.intTensor(2, PositionIDs, m.posType, []int64{int64(n), int64(S)}, b.pos))
	}
	H, D := int64(m.spec.KVHeads), int64(m.spec.HeadDim)
	for i, name := range m.past {
		b.in = append(b.in, backend.Tensor{Name: name, DType: m.cacheType, Shape: []int64{int64(n), H, int64(T), D},
			Data: b.cur[i][:n*b.hd()*T]})
	}
	if m.into != nil {
		b.out = b.out[:0]
		need := n * S * V
		switch m.logitsType {
		case backend.Float16:
			buf, _ := b.logits.([]uint16)
			if cap(buf) < need {
				buf = make([]uint16, need)
			}
			b.logits = buf[:need]
		default:
			buf, _ := b.logits.([]float32)
			if cap(buf) < need {
				buf = make([]float32, need)
			}
			b.logits = buf[:need]
		}
		for _, name := range m.outputs {
			t := backend.Tensor{Name: name}
			if name == Logits {
				t = backend.Tensor{Name: name, DType: m.logitsType, Shape: []int64{int64(n), int64(S), int64(V)}, Data: b.logits}
			}
			b.out = append(b.out, t)
		}
		for i, name := range m.present {
			b.spare[i] = b.ensure(b.spare[i], n*b.hd()*nT, n)
			j := b.outIndex(name)
			b.out[j] = backend.Tensor{Name: name, DType: m.cacheType, Shape: []int64{int64(n), H, int64(nT), D}, Data: b.spare[i]}
		}
		if err := m.into.RunInto(ctx, b.in, b.out); err != nil {
			return fmt.Errorf("generate: step: %w", err)
		}
		b.cur, b.spare = b.spare, b.cur
	} else {
		out, err := m.sess.Run(ctx, b.in)
		if err != nil {
			return fmt.Errorf("generate: step: %w", err)
		}
		if len(out) != len(m.outputs) {
			return fmt.Errorf("%w: session returned %d outputs, declares %d", ErrContract, len(out), len(m.outputs))
		}
		for j, t := range out {
			if t.Name != "" && t.Name != m.outputs[j] {
				return fmt.Errorf("%w: session output %d is %q, declared %q", ErrContract, j, t.Name, m.outputs[j])
			}
		}
		lo := out[b.outIndex(Logits)]
		if backend.DataLen(lo.DType, lo.Data) != n*S*V {
			return fmt.Errorf("%w: logits of %d elements, want %d×%d×%d", ErrContract, backend.DataLen(lo.DType, lo.Data), n, S, V)
		}
		b.logits = lo.Data
		for i, name := range m.present {
			t := out[b.outIndex(name)]
			d, ok := t.Data.([]E)
			if !ok || len(d) != n*b.hd()*nT {
				return fmt.Errorf("%w: output %q holds %d elements of %T, want %d", ErrContract, name, backend.DataLen(t.DType, t.Data), t.Data, n*b.hd()*nT)
			}
			b.spare[i], b.cur[i] = b.cur[i], d
		}
	}
	b.T = nT
	// last-position logits, as float32
	// float32 rows are views of the logits buffer, owned by b
	b.lastRows = b.lastRows[:0]
	for r := range n {
		off := (r*S + S - 1) * V
		switch lo := b.logits.(type) {
		case []float32:
			b.lastRows = append(b.lastRows, lo[off:off+V:off+V])
		case []uint16:
			b.lastBuf = resize(b.lastBuf, n*V)
			dst := b.lastBuf[r*V : (r+1)*V]
			for k, h := range lo[off : off+V] {
				dst[k] = onnx.Float16ToFloat32(h)
			}
			b.lastRows = append(b.lastRows, dst)
		}
	}
	return nil
}

func (b *batch[E]) outIndex(name string) int {
	for j, o := range b.m.outputs {
		if o == name {
			return j
		}
	}
	return -1
}

func (b *batch[E]) intTensor(slot int, name string, dt backend.DType, shape []int64, v []int64) backend.Tensor {
	if dt == backend.Int32 {
		b.i32[slot] = resize(b.i32[slot], len(v))
		for i, x := range v {
			b.i32[slot][i] = int32(x)
		}
		return backend.Tensor{Name: name, DType: dt, Shape: shape, Data: b.i32[slot]}
	}
	return backend.Tensor{Name: name, DType: backend.Int64, Shape: shape, Data: v}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (b *batch[E]) keep(src []int) error {
	for _, s := range src {
		if s < 0 || s >= b.n {
			return fmt.Errorf("%w: keep row %d of %d", ErrBadInput, s, b.n)
		}
	}
	if len(src) == 0 {
		b.n = 0
		b.start = b.start[:0]
		return nil
	}
	identity := len(src) == b.n
	minStart := b.T
	for i, s := range src {
		identity = identity && s == i
		minStart = min(minStart, b.start[s])
	}
	if b.dummy {
		minStart = min(minStart, b.T-1)
	}
	if identity && minStart*4 < b.T {
		return nil
	}
	n2 := len(src)
	b.startTmp = resize(b.startTmp, n2)
	if minStart == 0 && b.gatherInPlace(src) {
		for r, s := range src {
			b.startTmp[r] = b.start[s]
		}
		b.start, b.startTmp = b.startTmp, b.start
		b.n = n2
		return nil
	}
	// Columns before minStart are padding in every kept row: drop them.
	nT := b.T - minStart
	H, D := b.m.spec.KVHeads, b.m.spec.HeadDim
	for i := range b.cur {
		dst := b.ensure(b.spare[i], n2*b.hd()*nT, n2)
		old := b.cur[i]
		for r, s := range src {
			for h := range H {
				do := (r*H + h) * nT * D
				so := (s*H+h)*b.T*D + minStart*D
				copy(dst[do:do+nT*D], old[so:so+nT*D])
			}
		}
		b.spare[i] = dst
		b.cur[i], b.spare[i] = b.spare[i], b.cur[i]
	}
	for r, s := range src {
		b.startTmp[r] = b.start[s] - minStart
	}
	b.start, b.startTmp = b.startTmp, b.start
	b.n, b.T = n2, nT
	return nil
}

// move is one row copy of an in-place gather: row dst of the cache takes
// row src, or scratch slot src when fromScratch; a save (dst < 0) copies
// row src to scratch slot -dst-1.
type move struct {
	dst, src    int
	fromScratch bool
}

// gatherInPlace makes the batch rows src[0], src[1], … of the current ones
// (keep without dropping columns) by moving whole rows within the cache
// buffers: a row that keeps its place is not copied, each other row is
// copied once, in an order that reads every row before it is overwritten
// (a cycle of rows swapping places costs one copy more, through the spare
// buffer). It reports false, changing nothing, when a buffer is too small
// for the new rows.
func (b *batch[E]) gatherInPlace(src []int) bool {
	n2 := len(src)
	rs := b.hd() * b.T // elements per row
	for _, c := range b.cur {
		if cap(c) < n2*rs {
			return false
		}
	}
	moves := b.planGather(src)
	slots := 0
	for _, mv := range moves {
		if mv.dst < 0 {
			slots++
		}
	}
	gather := func(i int) {
		cur := b.cur[i][:n2*rs]
		var scratch []E
		if slots > 0 {
			b.spare[i] = b.ensure(b.spare[i], slots*rs, slots)
			scratch = b.spare[i]
		}
		for _, mv := range moves {
			switch {
			case mv.dst < 0:
				k := -mv.dst - 1
				copy(scratch[k*rs:(k+1)*rs], cur[mv.src*rs:(mv.src+1)*rs])
			case mv.fromScratch:
				copy(cur[mv.dst*rs:(mv.dst+1)*rs], scratch[mv.src*rs:(mv.src+1)*rs])
			default:
				copy(cur[mv.dst*rs:(mv.dst+1)*rs], cur[mv.src*rs:(mv.src+1)*rs])
			}
		}
		b.cur[i] = cur
	}
	// Large caches (GPT-J's: megabytes a row) are moved by one goroutine
	// per core, each a run of the buffers.
	w := min(len(b.cur), runtime.GOMAXPROCS(0))
	if w < 2 || len(moves)*rs*int(unsafe.Sizeof(E(0)))*len(b.cur) < parallelCopy {
		for i := range b.cur {
			gather(i)
		}
		return true
	}
	var wg sync.WaitGroup
	for k := 1; k < w; k++ {
		wg.Go(func() {
			for i := k * len(b.cur) / w; i < (k+1)*len(b.cur)/w; i++ {
				gather(i)
			}
		})
	}
	for i := range len(b.cur) / w {
		gather(i)
	}
	wg.Wait()
	return true
}

// parallelCopy is the number of bytes from which keep's row moves are
// spread over the cores (a variable for the tests).
var parallelCopy = 4 << 20

// planGather orders the row copies of gatherInPlace: a row is written
// only once no pending copy still reads it; when only cycles are left, one
// of their rows is saved to scratch and its readers read it there.
func (b *batch[E]) planGather(src []int) []move {
	n2 := len(src)
	rows := max(n2, b.n)
	b.readers = resize(b.readers, rows) // pending copies reading the row
	b.saved = resize(b.saved, rows)     // scratch slot of the row, or -1
	b.written = resize(b.written, rows)
	clear(b.readers)
	clear(b.written)
	for i := range b.saved {
		b.saved[i] = -1
	}
	pending := 0
	for r, s := range src {
		if s != r {
			pending++
			b.readers[s]++
		}
	}
	// ready: rows to write that no pending copy reads
	ready := b.ready[:0]
	for r, s := range src {
		if s != r && b.readers[r] == 0 {
			ready = append(ready, r)
		}
	}
	moves := b.moves[:0]
	slots, next := 0, 0
	for pending > 0 {
		for len(ready) > 0 {
			r := ready[len(ready)-1]
			ready = ready[:len(ready)-1]
			s := src[r]
			if k := b.saved[s]; k >= 0 {
				moves = append(moves, move{dst: r, src: k, fromScratch: true})
			} else {
				moves = append(moves, move{dst: r, src: s})
				b.readers[s]--
				if s < n2 && src[s] != s && !b.written[s] && b.readers[s] == 0 {
					ready = append(ready, s)
				}
			}
			b.written[r] = true
			pending--
		}
		if pending == 0 {
			break
		}
		// Only cycles are left: save one of their rows.
		for src[next] == next || b.written[next] {
			next++
		}
		moves = append(moves, move{dst: -slots - 1, src: next})
		b.saved[next] = slots
		slots++
		b.readers[next] = 0
		ready = append(ready, next)
	}
	b.moves, b.ready = moves, ready
	return moves
}

func (b *batch[E]) merge(os state) error {
	o, ok := os.(*batch[E])
	if !ok || o.m != b.m {
		return fmt.Errorf("%w: merge of states of different models", ErrBadInput)
	}
	if o.n == 0 {
		return nil
	}
	if b.n == 0 {
		// adopt o's rows: swap buffers so that b keeps its own
		for i := range b.cur {
			b.cur[i] = b.ensure(b.cur[i], o.n*b.hd()*o.T, o.n)
			copy(b.cur[i], o.cur[i][:o.n*b.hd()*o.T])
		}
		b.n, b.T = o.n, o.T
		b.start = append(b.start[:0], o.start...)
		return nil
	}
	nT := max(b.T, o.T)
	n2 := b.n + o.n
	H, D := b.m.spec.KVHeads, b.m.spec.HeadDim
	for i := range b.cur {
		dst := b.ensure(b.spare[i], n2*b.hd()*nT, n2)
		for part, src := range []*batch[E]{b, o} {
			first := 0
			if part == 1 {
				first = b.n
			}
			pad := nT - src.T
			for r := range src.n {
				for h := range H {
					do := ((first+r)*H + h) * nT * D
					so := (r*H + h) * src.T * D
					clear(dst[do : do+pad*D])
					copy(dst[do+pad*D:do+nT*D], src.cur[i][so:so+src.T*D])
				}
			}
		}
		b.spare[i] = b.cur[i]
		b.cur[i] = dst
	}
	st := make([]int, 0, n2)
	for _, s := range b.start[:b.n] {
		st = append(st, s+nT-b.T)
	}
	for _, s := range o.start[:o.n] {
		st = append(st, s+nT-o.T)
	}
	b.start = st
	b.n, b.T = n2, nT
	return nil
}
