package llama3

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/loadgen"
)

func TestQSLChecksPrompts(t *testing.T) {
	spec := decodeSpec(configs[sizeTiny])
	recs := []cnndm.Llama3Record{
		{TokInput: []int32{128000, 9906}, Output: "a ."},
		{TokInput: []int32{128000, 128256}, Output: "b ."}, // outside the vocabulary
		{TokInput: []int32{128000, 5}, Output: "c ."},
	}
	q, err := newQSL(recs, 0, spec, maxNewTokensDefault, "cnn_eval.json")
	if err != nil {
		t.Fatal(err)
	}
	if q.TotalSampleCount() != 3 || !slices.Equal(q.Targets(), []string{"a .", "b .", "c ."}) {
		t.Fatalf("%d samples, targets %q", q.TotalSampleCount(), q.Targets())
	}
	ctx := context.Background()
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{0, 2}); err != nil {
		t.Fatal(err)
	}
	if p, err := q.Prompt(2); err != nil || !slices.Equal(p, []int32{128000, 5}) {
		t.Errorf("prompt 2: %v, %v", p, err)
	}
	if _, err := q.Prompt(1); err == nil {
		t.Error("an unloaded sample has a prompt")
	}
	err = q.LoadSamples(ctx, []loadgen.SampleIndex{1})
	if !errors.Is(err, generate.ErrPrompt) || !strings.Contains(err.Error(), "record 1 of cnn_eval.json") || !strings.Contains(err.Error(), "vocabulary of 128256") {
		t.Errorf("bad prompt: %v", err)
	}
	// a model of Llama 2's vocabulary cannot take the Llama 3.1 prompts
	small := spec
	small.Vocab = 32000
	q2, _ := newQSL(recs, 1, small, maxNewTokensDefault, "cnn_eval.json")
	if err := q2.LoadSamples(ctx, []loadgen.SampleIndex{0}); !errors.Is(err, generate.ErrPrompt) {
		t.Errorf("Llama 2 vocabulary: %v", err)
	}
	// no room for 128 new tokens
	short := spec
	short.MaxPositions = 100
	q3, _ := newQSL([]cnndm.Llama3Record{{TokInput: make([]int32, 50)}}, 0, short, maxNewTokensDefault, "x")
	if err := q3.LoadSamples(ctx, []loadgen.SampleIndex{0}); err == nil || !strings.Contains(err.Error(), "exceed the model's context") {
		t.Errorf("context: %v", err)
	}
	if _, err := newQSL(nil, 0, spec, maxNewTokensDefault, "empty.json"); err == nil {
		t.Error("empty data set accepted")
	}
}
