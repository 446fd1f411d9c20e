//go:build cgo

package whisper

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
	"github.com/mlperf-go/inference/onnx/torchgolden"
)

// The goldens in testdata/torch come from PyTorch 1.13 (Debian's
// python3-torch) by make_torch_small.py: a Whisper as transformers'
// modeling_whisper, written with torch.nn layers at width 32 (2 + 2
// layers, 4 heads, vocabulary 97) with seeded weights, given here in this
// package's builder names; PyTorch's encoder states, prompt logits and
// cross-attention keys, one cached step, and 8 greedy tokens.

const torchDir = "testdata/torch"

var torchSmall = config{Mels: 128, Width: 32, EncoderLayers: 2, DecoderLayers: 2, Heads: 4, FFN: 64, Vocab: 97,
	SourcePos: 1500, TargetPos: 448, LayerNormEps: 1e-5, MaxSourceFrame: 3000}

// torchFeatures is make_torch_small.py's input_features.
func torchFeatures() []float32 {
	f := make([]float32, 2*128*3000)
	for b := range 2 {
		for m := range 128 {
			for t := range 3000 {
				f[(b*128+m)*3000+t] = float32(float64((b*7+m*13+t*31)%97)/97 - 0.5)
			}
		}
	}
	return f
}

// withTorchWeights builds a graph and puts PyTorch's weights of its
// initializers into it.
func withTorchWeights(t *testing.T, build func() (*onnx.Graph, error)) backend.Session {
	t.Helper()
	g, err := build()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := torchgolden.ReadWeights(torchDir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, in := range g.Initializers() {
		have[in.Name] = true
	}
	ws = slices.DeleteFunc(ws, func(w *onnx.Tensor) bool { return !have[w.Name] })
	if err := torchgolden.Replace(g, ws); err != nil {
		t.Fatal(err)
	}
	return orttest.OpenGraph(t, g)
}

func check(t *testing.T, what string, got []float32, file string) {
	t.Helper()
	_, want, err := torchgolden.ReadNpy(torchDir, file)
	if err != nil {
		t.Fatal(err)
	}
	if bad, first := torchgolden.Diff(got, want, 1e-4, 1e-4); bad > 0 {
		t.Errorf("%s: %d of %d values differ from PyTorch's: %s", what, bad, len(want), first)
	}
}

// TestArchWithTorchWeightsMatchesPyTorch gives the builder, at the
// PyTorch configuration, PyTorch's weights: the convolutions, positions,
// attention (scaling, biases, causal mask, cross-attention), MLP, norms,
// the cache I/O and the decode loop then compute PyTorch's numbers and
// tokens.
func TestArchWithTorchWeightsMatchesPyTorch(t *testing.T) {
	enc := withTorchWeights(t, func() (*onnx.Graph, error) { return encoderGraph(torchSmall, archSeed) })
	dec := withTorchWeights(t, func() (*onnx.Graph, error) { return decoderGraph(torchSmall, archSeed, false) })
	past := withTorchWeights(t, func() (*onnx.Graph, error) { return decoderGraph(torchSmall, archSeed, true) })
	m, err := New(enc, dec, past)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	feats := torchFeatures()
	out, err := enc.Run(ctx, []backend.Tensor{{Name: inputFeatures, DType: backend.Float32, Shape: []int64{2, 128, 3000}, Data: feats}})
	if err != nil {
		t.Fatal(err)
	}
	hidden, _ := byName(out, lastHiddenState)
	h := hidden.Data.([]float32)
	var rows []float32
	for b := range 2 {
		rows = append(rows, h[b*1500*32:(b*1500+10)*32]...)
		rows = append(rows, h[(b*1500+1490)*32:(b+1)*1500*32]...)
	}
	check(t, "encoder states", rows, "encoder_rows.npy")

	hidden.Name = encoderHiddenStates
	prompt := []int64{1, 5, 17, 33, 1, 5, 17, 33}
	out, err = dec.Run(ctx, []backend.Tensor{{Name: inputIDs, DType: backend.Int64, Shape: []int64{2, 4}, Data: prompt}, hidden})
	if err != nil {
		t.Fatal(err)
	}
	logits, _ := byName(out, logitsName)
	check(t, "prompt logits", logits.Data.([]float32), "prefill_logits.npy")
	ck, _ := byName(out, presentNames(0)[2])
	var ck10 []float32
	for bh := range 2 * 4 {
		ck10 = append(ck10, ck.Data.([]float32)[bh*1500*8:bh*1500*8+80]...)
	}
	check(t, "present.0.encoder.key", ck10, "prefill_cross0k.npy")

	lf := logits.Data.([]float32)
	next := []int64{int64(argmax(lf[3*97 : 4*97])), int64(argmax(lf[7*97 : 8*97]))}
	in := []backend.Tensor{{Name: inputIDs, DType: backend.Int64, Shape: []int64{2, 1}, Data: next}}
	for l := range 2 {
		for i, n := range pastNames(l) {
			p, _ := byName(out, presentNames(l)[i])
			p.Name = n
			in = append(in, p)
		}
	}
	step, err := past.Run(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	sl, _ := byName(step, logitsName)
	check(t, "step logits", sl.Data.([]float32), "step_logits.npy")

	got, err := m.Decode(ctx, feats, 2, Generation{Prompt: []int32{1, 5, 17, 33}, EOT: -1, MaxNewTokens: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(torchDir + "/greedy.txt")
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var want []int32
		for _, f := range strings.Fields(line) {
			v, _ := strconv.Atoi(f)
			want = append(want, int32(v))
		}
		if !slices.Equal(got[i], want) {
			t.Errorf("row %d: greedy %v, PyTorch %v", i, got[i], want)
		}
	}
}
