//go:build cgo

package llama2

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/decoder/decodertest"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// orcaFile writes prompts as the tok_input of an OpenOrca parquet.
func orcaFile(t *testing.T, prompts [][]int32) *openorca.Dataset {
	t.Helper()
	recs := make([]openorca.Record, len(prompts))
	for i, p := range prompts {
		in := make([]int64, len(p))
		for k, x := range p {
			in[k] = int64(x)
		}
		recs[i] = openorca.Record{ID: fmt.Sprintf("t0.%d", i), Origin: "t0", TokInput: in, TokInputLength: int64(len(in))}
	}
	path := filepath.Join(t.TempDir(), "orca.parquet")
	if err := openorca.WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	ds, err := openorca.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

func TestSpecFromSession(t *testing.T) {
	s, _ := openModel(t, small)
	want := small.Spec()
	want.MaxPositions = 4096 // not in the I/O: Llama 2's
	if got := specFromSession(s); got != want {
		t.Fatalf("spec %+v, want %+v", got, want)
	}
}

// TestBenchmarkScenarios runs the QSL and the SUT as the loadgen would:
// FirstToken is reported in Server and withheld in Offline, and responses
// are the same either way.
func TestBenchmarkScenarios(t *testing.T) {
	c := small
	_, m := openModel(t, c)
	ps := decodertest.Prompts(7, 24, int(c.Vocab), 4)
	ds := orcaFile(t, ps)
	gen := Generation()
	gen.MaxNewTokens = 12
	q, err := newQSL(ds, 6, c.Spec(), gen.MaxNewTokens)
	if err != nil {
		t.Fatal(err)
	}
	if q.TotalSampleCount() != 6 || q.PerformanceSampleCount() != 6 {
		t.Fatalf("counts %d %d", q.TotalSampleCount(), q.PerformanceSampleCount())
	}
	ctx := context.Background()
	idx := []loadgen.SampleIndex{4, 0, 2, 4, 1, 3, 5}
	if err := q.LoadSamples(ctx, idx); err != nil {
		t.Fatal(err)
	}
	if q.Loaded() != 6 {
		t.Fatalf("loaded %d", q.Loaded())
	}
	for i := range 6 {
		p, err := q.Prompt(loadgen.SampleIndex(i))
		if err != nil || !slices.Equal(p, ps[i]) {
			t.Fatalf("prompt %d: %v %v", i, p, err)
		}
	}
	if err := q.LoadSamples(ctx, []loadgen.SampleIndex{6}); err == nil {
		t.Fatal("sample 6 of 6 loaded")
	}
	results := map[bool]map[loadgen.ResponseID]loadgen.Response{}
	for _, offline := range []bool{false, true} {
		b, err := newBenchmark(ctx, m, benchmarkConfig{sutConfig: sutConfig{Prompts: q.Prompt, MaxBatch: 3, Generation: gen}, Offline: offline})
		if err != nil {
			t.Fatal(err)
		}
		comp := loadgentest.NewRecorder()
		var samples []loadgen.Sample
		for i := range 6 {
			samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(i), Index: loadgen.SampleIndex(i)})
		}
		b.IssueQuery(ctx, samples, comp)
		resps := comp.Wait(6)
		first := comp.FirstTokens()
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if offline && len(first) != 0 {
			t.Errorf("Offline: %d first tokens reported", len(first))
		}
		if !offline && len(first) != 6 {
			t.Errorf("Server: %d first tokens reported, want 6", len(first))
		}
		n, toks := b.Done()
		sum := 0
		for id, r := range resps {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			sum += r.Tokens
			if !offline && !slices.Equal(first[id], r.Data[:4]) {
				t.Errorf("sample %d: first token %x, data %x", id, first[id], r.Data[:4])
			}
		}
		if n != 6 || toks != int64(sum) {
			t.Errorf("Done %d samples %d tokens, responses hold %d", n, toks, sum)
		}
		results[offline] = resps
	}
	for id, r := range results[false] {
		if !slices.Equal(r.Data, results[true][id].Data) {
			t.Errorf("sample %d differs between Server and Offline", id)
		}
	}
	if err := q.UnloadSamples(ctx, idx); err != nil || q.Loaded() != 0 {
		t.Fatalf("unload: %v, %d left", err, q.Loaded())
	}
	if _, err := q.Prompt(0); err == nil {
		t.Fatal("unloaded sample served")
	}
}

func TestQSLRejectsPrompts(t *testing.T) {
	spec := small.Spec() // 256 positions, vocabulary 97
	long := make([]int32, 250)
	ds := orcaFile(t, [][]int32{{1, 5}, long, {1, 97}, {}})
	q, err := newQSL(ds, 0, spec, 16)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "250 prompt ids + 16 new tokens exceed the model's context of 256 positions (row 1 of", "id 97 at position 1 is outside the model's vocabulary of 97", "empty tok_input"} {
		err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{loadgen.SampleIndex(i)})
		if want == "" {
			if err != nil {
				t.Errorf("row %d: %v", i, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, errPrompt) {
			t.Errorf("row %d: %v, want %q", i, err, want)
		}
	}
	if q.Loaded() != 1 {
		t.Errorf("%d loaded, want 1", q.Loaded())
	}
}
