//go:build cgo

package llama2

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// TestSUTPassesTEST06 runs samples through the Llama 2 SUT as a Server run
// would (queries arriving one by one, FirstToken reported) and applies
// TEST06's checks to every response: the first token equals data[0], at
// most one trailing EOS, token_count equals the length; and each response
// equals Greedy decoding of the prompt alone.
func TestSUTPassesTEST06(t *testing.T) {
	c := small
	c.MaxPositions = 64
	_, m := openModel(t, c)
	ps := decodertest.Prompts(10, 20, int(c.Vocab), 9)
	gen := Generation()
	gen.MaxNewTokens = 64 - 20
	sut, err := newSUT(context.Background(), m, sutConfig{
		Prompts: func(i loadgen.SampleIndex) ([]int32, error) {
			if int(i) >= len(ps) {
				return nil, fmt.Errorf("sample %d not loaded", i)
			}
			return ps[i], nil
		},
		MaxBatch:   4,
		Generation: gen,
	})
	if err != nil {
		t.Fatal(err)
	}
	comp := loadgentest.NewRecorder()
	for i := range ps {
		sut.IssueQuery(context.Background(), []loadgen.Sample{{ID: loadgen.ResponseID(i + 1), Index: loadgen.SampleIndex(i)}}, comp)
	}
	resps := comp.Wait(len(ps))
	if err := sut.Close(); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		id := loadgen.ResponseID(i + 1)
		r := resps[id]
		if r.Err != nil {
			t.Fatalf("sample %d: %v", i, r.Err)
		}
		toks, err := DecodeTokens(r.Data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(comp.First(id), r.Data[:4]) {
			t.Errorf("sample %d: first token %x, data[0] %x", i, comp.First(id), r.Data[:4])
		}
		if r.Tokens != len(toks) || r.Tokens < 2 {
			t.Errorf("sample %d: token_count %d, %d ids", i, r.Tokens, len(toks))
		}
		if n := len(toks) - len(slices.DeleteFunc(slices.Clone(toks), func(x int32) bool { return x == EOS })); n > 1 || (n == 1 && toks[len(toks)-1] != EOS) {
			t.Errorf("sample %d: %d EOS in %v", i, n, toks)
		}
		alone, err := m.Greedy(context.Background(), [][]int32{p}, generate.GreedyConfig{GreedyConfig: gen})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(alone[0], toks) {
			t.Errorf("sample %d: SUT %v, Greedy alone %v", i, toks, alone[0])
		}
	}
}
