//go:build cgo

package gptj

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
)

// small is tiny with a small vocabulary, so that decoding tests run fast.
var small = config{Layers: 2, Hidden: 32, Heads: 2, RotaryDim: 8, Inner: 128, Vocab: 101, MaxPositions: 256, LNEps: 1e-5}

func openModel(t testing.TB, c config) (*ort.Session, *generate.Model) {
	t.Helper()
	orttest.Need(t)
	path := filepath.Join(t.TempDir(), "gptj.onnx")
	if err := BuildConfigFile(path, c, archSeed); err != nil {
		t.Fatal(err)
	}
	s, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m, err := generate.New(s, c.Spec())
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

func TestGraphCache(t *testing.T) {
	s, _ := openModel(t, small)
	decodertest.CheckGraph(t, s, small.Spec())
}

func TestFullRotaryGraphCache(t *testing.T) {
	c := small
	c.RotaryDim = c.HeadDim()
	s, _ := openModel(t, c)
	decodertest.CheckGraph(t, s, c.Spec())
}

func TestCachedEqualsNaive(t *testing.T) {
	_, m := openModel(t, small)
	decodertest.CheckCachedEqualsNaive(t, m, small.Spec().PadID)
}

func TestTinyRuns(t *testing.T) {
	c := Configs[SizeTiny]
	_, m := openModel(t, c)
	out, err := m.Beam(context.Background(), [][]int32{{7454, 2174, 318, 281, 12064}}, sample.BeamConfig{Beams: 4, EOS: EOS, MinNewTokens: 2, MaxNewTokens: 4, LengthPenalty: 1, EarlyStopping: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out[0][0].Tokens) < 2 {
		t.Errorf("generated %v", out[0][0].Tokens)
	}
}

// TestReference compares the graph with an independent numpy forward pass
// of the same seeded weights (testdata/reference.py).
func TestReference(t *testing.T) {
	g := decodertest.LoadGolden(t, filepath.Join("testdata", "reference.json"))
	var c config
	if err := json.Unmarshal(g.Config, &c); err != nil {
		t.Fatal(err)
	}
	if g.Seed != archSeed {
		t.Fatalf("reference seed %d, ArchSeed %d", g.Seed, archSeed)
	}
	s, m := openModel(t, c)
	decodertest.CheckGolden(t, s, m, g, 1e-4)
}

func TestBatcher(t *testing.T) {
	_, m := openModel(t, small)
	decodertest.CheckBatcher(t, m, small.Spec().PadID)
}

func TestPredict(t *testing.T) {
	s, _ := openModel(t, small)
	ps := decodertest.Prompts(3, 12, int(small.Vocab), 17)
	beam := sample.BeamConfig{Beams: beams, EOS: small.Spec().PadID, MinNewTokens: 3, MaxNewTokens: 12, LengthPenalty: 1, EarlyStopping: true}
	m, err := New(s, small, func(i loadgen.SampleIndex) ([]int32, error) { return ps[i], nil }, beam)
	if err != nil {
		t.Fatal(err)
	}
	idx := []loadgen.SampleIndex{2, 0, 1}
	out := make([]loadgen.Response, len(idx))
	if err := m.Predict(context.Background(), idx, out); err != nil {
		t.Fatal(err)
	}
	g, err := generate.New(s, small.Spec())
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range idx {
		naive, err := g.BeamNaive(context.Background(), ps[x:x+1], beam)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeTokens(out[i].Data)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, naive[0][0].Tokens) {
			t.Errorf("sample %d: Predict %v, naive beam search %v", x, got, naive[0][0].Tokens)
		}
	}
}
