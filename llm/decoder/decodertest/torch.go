package decodertest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/kvcache"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/onnx/torchgolden"
)

// CheckTorchGolden compares a decoder session (the optimum "with past" I/O of
// llm/generate) with the PyTorch goldens in dir that make_torch_small.py
// writes for GPT-J and Llama 2: the logits of a prefill of prompts
// left-padded with pad (positions cumsum(mask) − 1, 1 at padding) and its
// present.0.key, the logits of one cached step feeding each row's argmax,
// all to 1e-4 absolute or relative, and the tokens of greedy decoding
// through llm/generate (greedy.txt, maxNew tokens per prompt, no EOS).
func CheckTorchGolden(t testing.TB, s backend.Session, spec generate.Spec, dir string, prompts [][]int32, pad int64, maxNew int) {
	t.Helper()
	S := 0
	for _, p := range prompts {
		S = max(S, len(p))
	}
	rows := len(prompts)
	var ids, mask, pos []int64
	for _, p := range prompts {
		off := S - len(p)
		for i := range S {
			if i < off {
				ids, mask, pos = append(ids, pad), append(mask, 0), append(pos, 1)
			} else {
				ids, mask, pos = append(ids, int64(p[i-off])), append(mask, 1), append(pos, int64(i-off))
			}
		}
	}
	want := func(name string) []float32 {
		_, v, err := torchgolden.ReadNpy(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	check := func(what string, got backend.Tensor, w []float32) {
		g, ok := got.Data.([]float32)
		if !ok {
			t.Fatalf("%s: %T, want float32", what, got.Data)
		}
		if bad, first := torchgolden.Diff(g, w, 1e-4, 1e-4); bad > 0 {
			t.Errorf("%s: %d of %d values differ from PyTorch's: %s", what, bad, len(w), first)
		}
	}
	out := runDecoder(t, s, spec, ids, mask, pos, rows, nil)
	check("prefill logits", out[generate.Logits], want("prefill_logits.npy"))
	k0, _ := kvcache.PresentNames(0)
	check("prefill present.0.key", out[k0], want("prefill_present0k.npy"))

	logits := out[generate.Logits].Data.([]float32)
	V := spec.Vocab
	var next, pos2, mask2 []int64
	for r := range rows {
		row := logits[(r*S+S-1)*V : (r*S+S)*V]
		next = append(next, int64(slices.Index(row, slices.Max(row))))
		pos2 = append(pos2, pos[r*S+S-1]+1)
		mask2 = append(append(mask2, mask[r*S:(r+1)*S]...), 1)
	}
	step := runDecoder(t, s, spec, next, mask2, pos2, rows, out)
	check("step logits", step[generate.Logits], want("step_logits.npy"))

	m, err := generate.New(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Greedy(context.Background(), prompts, generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: maxNew}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "greedy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var w []int32
		for _, f := range strings.Fields(line) {
			v, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			w = append(w, int32(v))
		}
		if i >= len(got) || !slices.Equal(got[i], w) {
			t.Errorf("prompt %d: greedy %v, PyTorch %v", i, got[min(i, len(got)-1)], w)
		}
	}
}

// runDecoder runs one call with the presents of a previous call as the
// past (nil: an empty past) and returns the outputs by name.
func runDecoder(t testing.TB, s backend.Session, spec generate.Spec, ids, mask, pos []int64, rows int, past map[string]backend.Tensor) map[string]backend.Tensor {
	t.Helper()
	seq := int64(len(ids) / rows)
	in := []backend.Tensor{
		{Name: generate.InputIDs, DType: backend.Int64, Shape: []int64{int64(rows), seq}, Data: ids},
		{Name: generate.AttentionMask, DType: backend.Int64, Shape: []int64{int64(rows), int64(len(mask) / rows)}, Data: mask},
		{Name: generate.PositionIDs, DType: backend.Int64, Shape: []int64{int64(rows), seq}, Data: pos},
	}
	for l := range spec.Layers {
		pk, pv := kvcache.PastNames(l)
		qk, qv := kvcache.PresentNames(l)
		for _, n := range [][2]string{{pk, qk}, {pv, qv}} {
			if p, ok := past[n[1]]; ok {
				in = append(in, backend.Tensor{Name: n[0], DType: backend.Float32, Shape: p.Shape, Data: p.Data})
			} else {
				in = append(in, backend.Tensor{Name: n[0], DType: backend.Float32, Shape: []int64{int64(rows), int64(spec.KVHeads), 0, int64(spec.HeadDim)}, Data: []float32{}})
			}
		}
	}
	out, err := s.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]backend.Tensor{}
	for _, o := range out {
		m[o.Name] = o
	}
	return m
}
