//go:build cgo

package llama2

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/internal/torchgolden"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/kvcache"
	"github.com/mlperf-go/inference/llm/sample"
)

// The goldens in testdata/torch come from PyTorch 1.13 (Debian's
// python3-torch) by make_torch_small.py: a Llama 2 decoder as
// transformers' modeling_llama, written with torch.nn layers at 2 layers of
// width 32, exported in the optimum "with past" I/O with seeded weights;
// the same weights in this package's builder names; PyTorch's logits of a
// left-padded prefill and of one cached step; and 8 greedy tokens per
// prompt.

const torchDir = "testdata/torch"

// torchSmall is make_torch_small.py's configuration.
var torchSmall = Config{Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 97, MaxPositions: 256, RopeTheta: 10000, RMSEps: 1e-5}

var torchPrompts = [][]int32{{1, 5, 17, 33}, {1, 40, 8, 61, 22, 90}}

// torchRun runs one call of the decoder with the given past (nil: empty)
// and returns its outputs by name.
func torchRun(t *testing.T, s backend.Session, ids, mask, pos []int64, rows int, past map[string]backend.Tensor) map[string]backend.Tensor {
	t.Helper()
	seq := int64(len(ids) / rows)
	in := []backend.Tensor{
		{Name: generate.InputIDs, DType: backend.Int64, Shape: []int64{int64(rows), seq}, Data: ids},
		{Name: generate.AttentionMask, DType: backend.Int64, Shape: []int64{int64(rows), int64(len(mask) / rows)}, Data: mask},
		{Name: generate.PositionIDs, DType: backend.Int64, Shape: []int64{int64(rows), seq}, Data: pos},
	}
	for l := range int(torchSmall.Layers) {
		pk, pv := kvcache.PastNames(l)
		qk, qv := kvcache.PresentNames(l)
		for _, n := range [][2]string{{pk, qk}, {pv, qv}} {
			if p, ok := past[n[1]]; ok {
				in = append(in, backend.Tensor{Name: n[0], DType: backend.Float32, Shape: p.Shape, Data: p.Data})
			} else {
				in = append(in, backend.Tensor{Name: n[0], DType: backend.Float32, Shape: []int64{int64(rows), torchSmall.KVHeads, 0, torchSmall.HeadDim()}, Data: []float32{}})
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

// compareTorch checks a session against PyTorch: the left-padded prefill's
// logits and first present key, one cached step's logits (absolute 1e-4 or
// relative 1e-4), and greedy decoding through llm/generate.
func compareTorch(t *testing.T, s backend.Session) {
	t.Helper()
	// The prefill batch: the shorter prompt left-padded with token 2.
	const S = 6
	var ids, mask, pos []int64
	for _, p := range torchPrompts {
		pad := S - len(p)
		for i := range S {
			if i < pad {
				ids, mask, pos = append(ids, 2), append(mask, 0), append(pos, 1)
			} else {
				ids, mask, pos = append(ids, int64(p[i-pad])), append(mask, 1), append(pos, int64(i-pad))
			}
		}
	}
	want := func(name string) []float32 {
		_, v, err := torchgolden.ReadNpy(torchDir, name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	check := func(what string, got backend.Tensor, w []float32) {
		if bad, first := torchgolden.Diff(got.Data.([]float32), w, 1e-4, 1e-4); bad > 0 {
			t.Errorf("%s: %d of %d values differ from PyTorch's: %s", what, bad, len(w), first)
		}
	}
	out := torchRun(t, s, ids, mask, pos, 2, nil)
	check("prefill logits", out[generate.Logits], want("prefill_logits.npy"))
	k0, _ := kvcache.PresentNames(0)
	check("prefill present.0.key", out[k0], want("prefill_present0k.npy"))

	// One cached step: each row's argmax at the next position.
	logits := out[generate.Logits].Data.([]float32)
	V := int(torchSmall.Vocab)
	var next, pos2 []int64
	mask2 := make([]int64, 0, 2*(S+1))
	for r := range 2 {
		row := logits[(r*S+S-1)*V : (r*S+S)*V]
		next = append(next, int64(slices.Index(row, slices.Max(row))))
		pos2 = append(pos2, pos[r*S+S-1]+1)
		mask2 = append(append(mask2, mask[r*S:(r+1)*S]...), 1)
	}
	step := torchRun(t, s, next, mask2, pos2, 2, out)
	check("step logits", step[generate.Logits], want("step_logits.npy"))

	// Greedy decoding of each prompt, in one batch, through llm/generate.
	m, err := generate.New(s, torchSmall.Spec())
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Greedy(context.Background(), torchPrompts, generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: -1, MaxNewTokens: 8}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(torchDir, "greedy.txt"))
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
		if !slices.Equal(got[i], w) {
			t.Errorf("prompt %d: greedy %v, PyTorch %v", i, got[i], w)
		}
	}
}

// TestTorchExportMatchesPyTorch runs the PyTorch-exported decoder through
// ONNX Runtime and llm/generate: logits, cache and greedy tokens are
// PyTorch's.
func TestTorchExportMatchesPyTorch(t *testing.T) {
	needORT(t)
	s, err := ort.Open(filepath.Join(torchDir, "torch_small.onnx"), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	compareTorch(t, s)
}

// TestArchWithTorchWeightsMatchesPyTorch gives this package's builder, at
// the same configuration, PyTorch's weights: RMSNorm, rotary embeddings,
// grouped-query attention, masks, the gated MLP and the cache I/O then
// compute PyTorch's numbers.
func TestArchWithTorchWeightsMatchesPyTorch(t *testing.T) {
	needORT(t)
	ws, err := torchgolden.ReadWeights(torchDir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Arch(torchSmall, ArchSeed)
	if err != nil {
		t.Fatal(err)
	}
	if err := torchgolden.Replace(g, ws); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := ort.OpenBytes(buf.Bytes(), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	compareTorch(t, s)
}
