package generate

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/kvcache"
	"github.com/mlperf-go/inference/onnx"
)

// fake is a pure-Go decoder that follows the contract exactly and whose
// output is a known function of the visible tokens: the logits at a query
// are ref(the real tokens it attends to, with their positions). Its cache
// stores each token as key (tok, pos) and value (tok·(layer+1), pos·(head+1))
// in every layer and head, and every run checks the past it is given for
// consistency, so a decode loop that mixes up layers, heads, rows or
// columns fails loudly.
type fake struct {
	layers, heads, dim, vocab int
	cache                     backend.DType // Float32 or Float16
	logits                    backend.DType
	ids                       backend.DType
	noPos                     bool
	inputs                    []backend.Info
	outputs                   []backend.Info
	runs                      atomic.Int64
	tokens                    atomic.Int64 // query positions computed
}

func newFake(layers, heads, vocab int) *fake {
	f := &fake{layers: layers, heads: heads, dim: 2, vocab: vocab, cache: backend.Float32, logits: backend.Float32, ids: backend.Int64}
	f.declare()
	return f
}

func (f *fake) declare() {
	f.inputs = []backend.Info{
		{Name: InputIDs, DType: f.ids, Shape: []int64{-1, -1}},
		{Name: AttentionMask, DType: f.ids, Shape: []int64{-1, -1}},
	}
	if !f.noPos {
		f.inputs = append(f.inputs, backend.Info{Name: PositionIDs, DType: f.ids, Shape: []int64{-1, -1}})
	}
	f.outputs = []backend.Info{{Name: Logits, DType: f.logits, Shape: []int64{-1, -1, int64(f.vocab)}}}
	for l := range f.layers {
		pk, pv := kvcache.PastNames(l)
		qk, qv := kvcache.PresentNames(l)
		sh := []int64{-1, int64(f.heads), -1, int64(f.dim)}
		f.inputs = append(f.inputs, backend.Info{Name: pk, DType: f.cache, Shape: sh}, backend.Info{Name: pv, DType: f.cache, Shape: sh})
		f.outputs = append(f.outputs, backend.Info{Name: qk, DType: f.cache, Shape: sh}, backend.Info{Name: qv, DType: f.cache, Shape: sh})
	}
}

func (f *fake) spec() Spec {
	return Spec{Layers: f.layers, KVHeads: f.heads, HeadDim: f.dim, Vocab: f.vocab, PadID: 0}
}

func (f *fake) Inputs() []backend.Info  { return f.inputs }
func (f *fake) Outputs() []backend.Info { return f.outputs }
func (f *fake) Close() error            { return nil }

// mix is the SplitMix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

func tokenHash(tok, pos int) uint64 { return mix(uint64(tok)<<32 | uint64(pos)) }

// fakeLogits writes the logits of a query that sees tokens with hash sum
// acc: multiples of 1/256 in [0, 8), exact in float16.
func fakeLogits(dst []float32, acc uint64) {
	for v := range dst {
		dst[v] = float32(mix(acc^uint64(v)*0x1000193)>>53) / 256
	}
}

// refLogits is the fake's output for the last token of seq.
func refLogits(vocab int, seq []int32) []float32 {
	var acc uint64
	for i, t := range seq {
		acc += tokenHash(int(t), i)
	}
	out := make([]float32, vocab)
	fakeLogits(out, acc)
	return out
}

func ints(t backend.Tensor) ([]int64, error) {
	switch d := t.Data.(type) {
	case []int64:
		return d, nil
	case []int32:
		out := make([]int64, len(d))
		for i, v := range d {
			out[i] = int64(v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("fake: %s is %T", t.Name, t.Data)
}

func toF(c backend.DType, data any, i int) float32 {
	if c == backend.Float16 {
		return onnx.Float16ToFloat32(data.([]uint16)[i])
	}
	return data.([]float32)[i]
}

func (f *fake) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	out := make([]backend.Tensor, len(f.outputs))
	for i, o := range f.outputs {
		out[i].Name = o.Name
	}
	if err := f.run(ctx, in, out, false); err != nil {
		return nil, err
	}
	return out, nil
}

// intoFake adds RunInto to a fake.
type intoFake struct{ *fake }

func (f intoFake) RunInto(ctx context.Context, in, out []backend.Tensor) error {
	return f.run(ctx, in, out, true)
}

func (f *fake) run(_ context.Context, in, out []backend.Tensor, into bool) error {
	f.runs.Add(1)
	byName := map[string]backend.Tensor{}
	for _, t := range in {
		byName[t.Name] = t
	}
	for _, inf := range f.inputs {
		t, ok := byName[inf.Name]
		if !ok {
			return fmt.Errorf("fake: input %q missing", inf.Name)
		}
		if t.DType != inf.DType || len(t.Shape) != len(inf.Shape) || backend.DataLen(t.DType, t.Data) != int(backend.Elements(t.Shape)) {
			return fmt.Errorf("fake: input %q: %v %v with %d elements", inf.Name, t.DType, t.Shape, backend.DataLen(t.DType, t.Data))
		}
	}
	if len(in) != len(f.inputs) {
		return fmt.Errorf("fake: %d inputs, want %d", len(in), len(f.inputs))
	}
	idsT := byName[InputIDs]
	B, S := int(idsT.Shape[0]), int(idsT.Shape[1])
	ids, err := ints(idsT)
	if err != nil {
		return err
	}
	mask, err := ints(byName[AttentionMask])
	if err != nil {
		return err
	}
	if byName[AttentionMask].Shape[0] != int64(B) {
		return fmt.Errorf("fake: mask batch %d, ids batch %d", byName[AttentionMask].Shape[0], B)
	}
	T := int(byName[AttentionMask].Shape[1])
	P := T - S
	if P < 0 {
		return fmt.Errorf("fake: mask of %d columns for %d new tokens", T, S)
	}
	var pos []int64
	if !f.noPos {
		if pos, err = ints(byName[PositionIDs]); err != nil {
			return err
		}
	} else {
		// derive positions from the mask, as a model without the input does
		pos = make([]int64, B*S)
		for b := range B {
			n := int64(0)
			for c := range T {
				if c >= P {
					pos[b*S+c-P] = max(n-1+mask[b*T+c], 0)
				}
				n += mask[b*T+c]
			}
		}
	}
	H, D := f.heads, f.dim
	// the visible (tok, pos) of every column, checked across layers/heads
	tok := make([]int, B*T)
	tpos := make([]int, B*T)
	for b := range B {
		for s := range S {
			tok[b*T+P+s] = int(ids[b*S+s])
			tpos[b*T+P+s] = int(pos[b*S+s])
		}
	}
	for l := range f.layers {
		pk, pv := kvcache.PastNames(l)
		kt, vt := byName[pk], byName[pv]
		if kt.Shape[0] != int64(B) || kt.Shape[1] != int64(H) || kt.Shape[2] != int64(P) || kt.Shape[3] != int64(D) {
			return fmt.Errorf("fake: %s shape %v, want [%d %d %d %d]", pk, kt.Shape, B, H, P, D)
		}
		for b := range B {
			for h := range H {
				for p := range P {
					if mask[b*T+p] == 0 {
						continue
					}
					i := ((b*H+h)*P + p) * D
					kt0, kp := toF(f.cache, kt.Data, i), toF(f.cache, kt.Data, i+1)
					vt0, vp := toF(f.cache, vt.Data, i), toF(f.cache, vt.Data, i+1)
					if vt0 != kt0*float32(l+1) || vp != kp*float32(h+1) {
						return fmt.Errorf("fake: %s row %d head %d col %d: key (%v,%v) value (%v,%v) inconsistent", pk, b, h, p, kt0, kp, vt0, vp)
					}
					if l == 0 && h == 0 {
						tok[b*T+p], tpos[b*T+p] = int(kt0), int(kp)
					} else if tok[b*T+p] != int(kt0) || tpos[b*T+p] != int(kp) {
						return fmt.Errorf("fake: %s row %d head %d col %d holds (%v,%v), layer 0 head 0 holds (%d,%d)", pk, b, h, p, kt0, kp, tok[b*T+p], tpos[b*T+p])
					}
				}
			}
		}
	}
	logits := make([]float32, B*S*f.vocab)
	for b := range B {
		var acc uint64
		for c := range T {
			if mask[b*T+c] != 0 {
				acc += tokenHash(tok[b*T+c], tpos[b*T+c])
			}
			if c >= P {
				fakeLogits(logits[(b*S+c-P)*f.vocab:(b*S+c-P+1)*f.vocab], acc)
				f.tokens.Add(1)
			}
		}
	}
	set := func(name string, dt backend.DType, shape []int64, fill func(i int) float32, n int) error {
		j := -1
		for k, o := range out {
			if o.Name == name {
				j = k
			}
		}
		if j < 0 {
			return fmt.Errorf("fake: output %q not requested", name)
		}
		if into && out[j].Data != nil && backend.DataLen(out[j].DType, out[j].Data) != n {
			return fmt.Errorf("fake: output %q buffer of %d elements, need %d", name, backend.DataLen(out[j].DType, out[j].Data), n)
		}
		var data any
		switch dt {
		case backend.Float16:
			d, _ := out[j].Data.([]uint16)
			if d == nil {
				if into {
					return fmt.Errorf("fake: float16 output %q needs a buffer", name)
				}
				d = make([]uint16, n)
			}
			for i := range d {
				d[i] = onnx.Float16Bits(fill(i))
			}
			data = d
		default:
			d, _ := out[j].Data.([]float32)
			if d == nil {
				d = make([]float32, n)
			}
			for i := range d {
				d[i] = fill(i)
			}
			data = d
		}
		out[j] = backend.Tensor{Name: name, DType: dt, Shape: shape, Data: data}
		return nil
	}
	if err := set(Logits, f.logits, []int64{int64(B), int64(S), int64(f.vocab)}, func(i int) float32 { return logits[i] }, len(logits)); err != nil {
		return err
	}
	for l := range f.layers {
		qk, qv := kvcache.PresentNames(l)
		at := func(i int) (b, h, c, d int) {
			d = i % D
			c = i / D % T
			h = i / D / T % H
			b = i / D / T / H
			return
		}
		pk, pv := kvcache.PastNames(l)
		key := func(i int) float32 {
			b, h, c, d := at(i)
			if c < P {
				return toF(f.cache, byName[pk].Data, ((b*H+h)*P+c)*D+d)
			}
			if d == 0 {
				return float32(tok[b*T+c])
			}
			return float32(tpos[b*T+c])
		}
		val := func(i int) float32 {
			b, h, c, d := at(i)
			if c < P {
				return toF(f.cache, byName[pv].Data, ((b*H+h)*P+c)*D+d)
			}
			if d == 0 {
				return float32(tok[b*T+c]) * float32(l+1)
			}
			return float32(tpos[b*T+c]) * float32(h+1)
		}
		sh := []int64{int64(B), int64(H), int64(T), int64(D)}
		if err := set(qk, f.cache, sh, key, B*H*T*D); err != nil {
			return err
		}
		if err := set(qv, f.cache, sh, val, B*H*T*D); err != nil {
			return err
		}
	}
	return nil
}
