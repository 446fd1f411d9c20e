//go:build cgo

package llama2

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
)

// small is tiny with a small vocabulary, so that decoding tests run fast.
var small = config{Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, Intermediate: 48, Vocab: 97, MaxPositions: 256, RopeTheta: 10000, RMSEps: 1e-5}

func openModel(t testing.TB, c config) (*ort.Session, *generate.Model) {
	t.Helper()
	orttest.Need(t)
	path := filepath.Join(t.TempDir(), "llama2.onnx")
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
	out, err := m.Greedy(context.Background(), [][]int32{{bos, 1724, 338, 29871}}, generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: EOS, MinNewTokens: 1, MaxNewTokens: 4}})
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
	c := config{Layers: rc.Layers, Hidden: rc.Hidden, Heads: rc.Heads, KVHeads: rc.KVHeads, Intermediate: rc.Intermediate,
		Vocab: rc.Vocab, MaxPositions: rc.MaxPositions, RopeTheta: rc.RopeTheta, RMSEps: rc.RMSEps}
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

// TestFloat16IO runs a model with a float16 cache and logits (a float16
// export's I/O) through the decode loop: the cache lives in uint16 buffers
// bound with RunInto, the prefill starts from one masked zero column.
// Cached and naive decoding differ only by the float16 rounding of the past
// keys and values, so the test compares the first tokens of a few prompts.
func TestFloat16IO(t *testing.T) {
	c := small
	c.Float16IO = true
	s, m := openModel(t, c)
	if m.CacheType() != backend.Float16 {
		t.Fatalf("cache type %v", m.CacheType())
	}
	for _, in := range s.Outputs() {
		if in.DType != backend.Float16 {
			t.Errorf("output %s is %v", in.Name, in.DType)
		}
	}
	ctx := context.Background()
	cfg := generate.GreedyConfig{GreedyConfig: sample.GreedyConfig{EOS: EOS, MinNewTokens: 1, MaxNewTokens: 4}}
	ps := decodertest.Prompts(3, 10, int(c.Vocab), 5)
	cached, err := m.Greedy(ctx, ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	naive, err := m.GreedyNaive(ctx, ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, m32 := openModel(t, small)
	f32, err := m32.Greedy(ctx, ps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		if !slices.Equal(cached[i], naive[i]) || !slices.Equal(cached[i], f32[i]) {
			t.Errorf("prompt %d: float16 cached %v, naive %v, float32 %v", i, cached[i], naive[i], f32[i])
		}
	}
}
