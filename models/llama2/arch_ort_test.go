//go:build cgo

package llama2

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
)

func needORT(t testing.TB) {
	t.Helper()
	if err := ort.Init(); err != nil {
		if errors.Is(err, ort.ErrNoLibrary) {
			t.Skipf("ONNX Runtime not available: %v", err)
		}
		t.Fatal(err)
	}
}

// small is tiny with a small vocabulary, so that decoding tests run fast.
var small = Config{Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 97, MaxPositions: 256, RopeTheta: 10000, RMSEps: 1e-5}

func openModel(t testing.TB, c Config) (*ort.Session, *generate.Model) {
	t.Helper()
	needORT(t)
	path := filepath.Join(t.TempDir(), "llama2.onnx")
	if err := BuildConfigFile(path, c, ArchSeed); err != nil {
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

func TestMultiHeadGraphCache(t *testing.T) {
	// 7b-like: as many kv heads as query heads
	c := small
	c.KVHeads = c.Heads
	s, _ := openModel(t, c)
	decodertest.CheckGraph(t, s, c.Spec())
}

func TestCachedEqualsNaive(t *testing.T) {
	_, m := openModel(t, small)
	decodertest.CheckCachedEqualsNaive(t, m, EOS)
}

func TestTinyRuns(t *testing.T) {
	c := Configs[SizeTiny]
	s, m := openModel(t, c)
	if got, want := len(s.Inputs()), 3+2*int(c.Layers); got != want {
		t.Errorf("%d inputs, want %d", got, want)
	}
	out, err := m.Greedy(context.Background(), [][]int32{{BOS, 1724, 338, 29871}}, generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: EOS, MinNewTokens: 1, MaxNewTokens: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out[0]) == 0 || out[0][0] == EOS {
		t.Errorf("generated %v", out[0])
	}
}

// TestReference compares the graph with an independent numpy forward pass
// of the same seeded weights (testdata/reference.py).
func TestReference(t *testing.T) {
	g := decodertest.LoadGolden(t, filepath.Join("testdata", "reference.json"))
	var rc struct {
		Layers, Hidden, Heads, KVHeads, Intermediate, Vocab, MaxPositions int64
		RopeTheta                                                         float64
		RMSEps                                                            float32
	}
	if err := json.Unmarshal(g.Config, &rc); err != nil {
		t.Fatal(err)
	}
	c := Config{Layers: rc.Layers, Hidden: rc.Hidden, Heads: rc.Heads, KVHeads: rc.KVHeads, Intermediate: rc.Intermediate,
		Vocab: rc.Vocab, MaxPositions: rc.MaxPositions, RopeTheta: rc.RopeTheta, RMSEps: rc.RMSEps}
	if g.Seed != ArchSeed {
		t.Fatalf("reference seed %d, ArchSeed %d", g.Seed, ArchSeed)
	}
	s, m := openModel(t, c)
	decodertest.CheckGolden(t, s, m, g, 1e-4)
}

func TestBatcher(t *testing.T) {
	_, m := openModel(t, small)
	decodertest.CheckBatcher(t, m, small.Spec().PadID)
}
