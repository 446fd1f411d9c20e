package llama

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/mlperf-go/inference/llm/gguf"
)

// TestRopeFreqFactorsMatchInvFreq: dividing the plain frequencies by the
// GGUF factors gives the rescaled ones (to float32 rounding).
func TestRopeFreqFactorsMatchInvFreq(t *testing.T) {
	for _, dim := range []int64{16, 128} {
		plain := InvFreq(dim, 500000, nil)
		scaled := InvFreq(dim, 500000, &Llama31Scaling)
		ff := RopeFreqFactors(dim, 500000, &Llama31Scaling)
		var ones, eights int
		for i := range plain {
			got := float64(plain[i]) / float64(ff[i])
			if d := math.Abs(got-float64(scaled[i])) / float64(scaled[i]); d > 1e-6 {
				t.Errorf("dim %d, frequency %d: plain/factor %g, rescaled %g", dim, i, got, scaled[i])
			}
			switch ff[i] {
			case 1:
				ones++
			case 8:
				eights++
			}
		}
		if ones == 0 || eights == 0 || ones+eights == len(ff) {
			t.Errorf("dim %d: factors %v lack a band", dim, ff)
		}
	}
}

// ggufTensors reads the float32 tensors of a written GGUF (the tiny
// reader of this test: it walks the header written by package gguf).
func ggufTensors(t *testing.T, b []byte) map[string][]float32 {
	t.Helper()
	r := bytes.NewReader(b)
	le := binary.LittleEndian
	var u32 uint32
	var u64 uint64
	rd := func(v any) {
		if err := binary.Read(r, le, v); err != nil {
			t.Fatal(err)
		}
	}
	str := func() string {
		rd(&u64)
		s := make([]byte, u64)
		r.Read(s)
		return string(s)
	}
	var magic [4]byte
	rd(&magic)
	rd(&u32)
	var nt, nkv uint64
	rd(&nt)
	rd(&nkv)
	var skip func(typ uint32)
	skip = func(typ uint32) {
		switch typ {
		case 4, 5, 6:
			rd(&u32)
		case 7:
			var b8 uint8
			rd(&b8)
		case 8:
			str()
		case 10:
			rd(&u64)
		case 9:
			var et uint32
			rd(&et)
			var n uint64
			rd(&n)
			for range n {
				skip(et)
			}
		default:
			t.Fatalf("metadata type %d", typ)
		}
	}
	for range nkv {
		str()
		var typ uint32
		rd(&typ)
		skip(typ)
	}
	type info struct {
		name string
		n    uint64
		off  uint64
	}
	var infos []info
	for range nt {
		name := str()
		var nd uint32
		rd(&nd)
		n := uint64(1)
		for range nd {
			rd(&u64)
			n *= u64
		}
		rd(&u32)
		rd(&u64)
		infos = append(infos, info{name, n, u64})
	}
	pos := uint64(len(b) - r.Len())
	data := (pos + gguf.Alignment - 1) / gguf.Alignment * gguf.Alignment
	out := map[string][]float32{}
	for _, in := range infos {
		v := make([]float32, in.n)
		for i := range v {
			v[i] = math.Float32frombits(le.Uint32(b[data+in.off+uint64(4*i):]))
		}
		out[in.name] = v
	}
	return out
}

// TestGGUFRopeLayout applies llama.cpp's rope (adjacent pairs, angle
// pos·θ^(−2i/D)/rope_freqs[i]) to the GGUF query and key rows and
// transformers' (rotate-half pairs, rescaled inverse frequencies) to the
// graph's: the rotated projections agree element for element after the
// head reordering, for query heads and for the fewer key heads.
func TestGGUFRopeLayout(t *testing.T) {
	c := Config{Layers: 1, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 8, Vocab: 11, MaxPositions: 64, RopeTheta: 10000, RMSEps: 1e-5,
		RopeScaling: &RopeScaling{Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 64}}
	g, err := Build(c, 5, Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := GGUF(g, c, GGUFConfig{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	ts := ggufTensors(t, buf.Bytes())
	ff := ts["rope_freqs.weight"]
	if len(ff) != 4 {
		t.Fatalf("rope_freqs %v", ff)
	}
	ws := map[string][]float64{}
	for _, in := range g.Initializers() {
		v, _ := in.Values()
		ws[in.Name] = v
	}
	D := c.HeadDim()
	plain := InvFreq(D, c.RopeTheta, nil)
	scaled := InvFreq(D, c.RopeTheta, c.RopeScaling)
	x := make([]float64, c.Hidden)
	for i := range x {
		x[i] = math.Sin(float64(3*i + 1))
	}
	for _, tc := range []struct {
		hf, gg string
		heads  int64
	}{
		{"model.layers.0.self_attn.q_proj.weight", "blk.0.attn_q.weight", c.Heads},
		{"model.layers.0.self_attn.k_proj.weight", "blk.0.attn_k.weight", c.KVHeads},
	} {
		out := tc.heads * D
		w, gw := ws[tc.hf], ts[tc.gg]
		hf := make([]float64, out) // x·W, W [in, out]
		gg := make([]float64, out) // rows of [out][in]
		for o := range out {
			for i := range c.Hidden {
				hf[o] += x[i] * w[i*out+o]
				gg[o] += x[i] * float64(gw[o*c.Hidden+i])
			}
		}
		const pos = 37
		for h := range tc.heads {
			for i := range D / 2 {
				// transformers: pair (i, i+D/2), angle pos·scaled[i]
				a := pos * float64(scaled[i])
				x1, x2 := hf[h*D+i], hf[h*D+i+D/2]
				r1, r2 := x1*math.Cos(a)-x2*math.Sin(a), x2*math.Cos(a)+x1*math.Sin(a)
				// llama.cpp: pair (2i, 2i+1), angle pos·plain[i]/ff[i]
				b := pos * float64(plain[i]) / float64(ff[i])
				y1, y2 := gg[h*D+2*i], gg[h*D+2*i+1]
				s1, s2 := y1*math.Cos(b)-y2*math.Sin(b), y2*math.Cos(b)+y1*math.Sin(b)
				if math.Abs(r1-s1) > 1e-4 || math.Abs(r2-s2) > 1e-4 {
					t.Errorf("%s head %d pair %d: transformers (%g, %g), llama.cpp (%g, %g)", tc.gg, h, i, r1, r2, s1, s2)
				}
			}
		}
	}
	// the other weights are plain transposes
	if got, want := ts["blk.0.ffn_down.weight"][1*8+3], float32(ws["model.layers.0.mlp.down_proj.weight"][3*32+1]); got != want {
		t.Errorf("ffn_down[1][3] = %g, want %g", got, want)
	}
	if got, want := ts["token_embd.weight"][5*32+7], float32(ws["model.embed_tokens.weight"][5*32+7]); got != want {
		t.Errorf("token_embd[5][7] = %g, want %g", got, want)
	}
}

func TestGGUFRefusesOtherGraphs(t *testing.T) {
	c := Config{Layers: 1, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 8, Vocab: 11, MaxPositions: 64, RopeTheta: 10000, RMSEps: 1e-5}
	g, err := Build(c, 5, Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	other := c
	other.Intermediate = 16
	if _, err := GGUF(g, other, GGUFConfig{}); err == nil {
		t.Error("converted a graph of another config")
	}
	other = c
	other.Layers = 2
	if _, err := GGUF(g, other, GGUFConfig{}); err == nil {
		t.Error("converted a graph with fewer layers")
	}
}

// TestGGUFExpertsLayout: a mixture-of-experts graph goes to llama.cpp's
// layout: the router as rows of experts, each layer's experts stacked
// (expert e's rows after expert e-1's, each row one output), and no dense
// MLP tensors; the metadata names the expert counts.
func TestGGUFExpertsLayout(t *testing.T) {
	c := Config{Layers: 1, Hidden: 16, Heads: 4, KVHeads: 2, Intermediate: 12, Vocab: 11, MaxPositions: 64, RopeTheta: 1e6, RMSEps: 1e-5,
		Experts: 4, ExpertsPerToken: 2}
	g, err := Build(c, 9, Options{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := GGUF(g, c, GGUFConfig{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"llama.expert_count", "llama.expert_used_count"} {
		if !bytes.Contains(buf.Bytes(), []byte(key)) {
			t.Errorf("no %s", key)
		}
	}
	ts := ggufTensors(t, buf.Bytes())
	ws := map[string][]float64{}
	for _, in := range g.Initializers() {
		v, _ := in.Values()
		ws[in.Name] = v
	}
	H, I, E := c.Hidden, c.Intermediate, c.Experts
	if _, ok := ts["blk.0.ffn_gate.weight"]; ok {
		t.Error("a dense ffn_gate in a mixture of experts")
	}
	for name, n := range map[string]int64{"blk.0.ffn_gate_inp.weight": H * E, "blk.0.ffn_gate_exps.weight": E * I * H,
		"blk.0.ffn_up_exps.weight": E * I * H, "blk.0.ffn_down_exps.weight": E * H * I} {
		if int64(len(ts[name])) != n {
			t.Errorf("%s has %d values, want %d", name, len(ts[name]), n)
		}
	}
	for e := range E {
		for _, tc := range []struct {
			gg, hf  string
			in, out int64
		}{
			{"ffn_gate_exps", "w1", H, I},
			{"ffn_up_exps", "w3", H, I},
			{"ffn_down_exps", "w2", I, H},
		} {
			w := ws[fmt.Sprintf("model.layers.0.block_sparse_moe.experts.%d.%s.weight", e, tc.hf)]
			o, i := (e+3)%tc.out, (2*e+1)%tc.in
			if got, want := ts["blk.0."+tc.gg+".weight"][e*tc.out*tc.in+o*tc.in+i], float32(w[i*tc.out+o]); got != want {
				t.Errorf("%s expert %d [%d][%d] = %g, want %g", tc.gg, e, o, i, got, want)
			}
		}
		if got, want := ts["blk.0.ffn_gate_inp.weight"][e*H+5], float32(ws["model.layers.0.block_sparse_moe.gate.weight"][5*E+e]); got != want {
			t.Errorf("ffn_gate_inp[%d][5] = %g, want %g", e, got, want)
		}
	}
}
