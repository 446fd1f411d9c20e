//go:build cgo

package llama2

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// TestKnownAnswerEndToEnd runs an accuracy-mode Offline test of the
// known-answer decoder through the Llama 2 SUT (continuous batching,
// left padding, KV cache) and the loadgen's accuracy log, and checks that
// every logged response is the counting sequence the decoder must produce:
// up to and including EOS, or MaxNewTokens long.
func TestKnownAnswerEndToEnd(t *testing.T) {
	orttest.Need(t)
	g, err := knownAnswerArch()
	if err != nil {
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
	m, err := New(s, knownAnswerConfig)
	if err != nil {
		t.Fatal(err)
	}
	// Prompts of different lengths whose last tokens reach EOS (2) after
	// different counts, or not within the limit.
	var prompts [][]int32
	for i, last := range []int32{90, 10, 95, 60, 88, 0, 70, 93, 40} {
		p := []int32{bos}
		for j := range 3 + 5*(i%4) {
			p = append(p, int32(3+(7*j+11*i)%90))
		}
		prompts = append(prompts, append(p, last))
	}
	gen := sample.GreedyConfig{EOS: EOS, MinNewTokens: 1, MaxNewTokens: 20}
	want := func(p []int32) []int32 {
		var out []int32
		tok := p[len(p)-1]
		for len(out) < gen.MaxNewTokens {
			tok = knownAnswerNext(tok)
			out = append(out, tok)
			if tok == EOS {
				break
			}
		}
		return out
	}
	sut, err := newSUT(context.Background(), m, sutConfig{
		Prompts: func(i loadgen.SampleIndex) ([]int32, error) {
			if int(i) >= len(prompts) {
				return nil, fmt.Errorf("no sample %d", i)
			}
			return prompts[i], nil
		},
		MaxBatch:   4,
		Generation: gen,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sut.Close()
	st := loadgen.DefaultSettings()
	st.Scenario, st.Mode = loadgen.Offline, loadgen.AccuracyOnly
	out := t.TempDir()
	res, err := loadgen.Run(context.Background(), sut, &loadgentest.MemQSL{Total: len(prompts), Performance: len(prompts)}, st, loadgen.LogSettings{OutDir: out, Prefix: "mlperf_log_"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("accuracy run invalid: %v", res.InvalidReasons)
	}
	seen := 0
	if _, err := accuracy.ReadUnique(filepath.Join(out, "mlperf_log_accuracy.json"), func(e accuracy.Entry) error {
		got, err := DecodeTokens(e.Data)
		if err != nil {
			return err
		}
		if w := want(prompts[e.QSLIdx]); !slices.Equal(got, w) {
			t.Errorf("sample %d: generated %v, want %v", e.QSLIdx, got, w)
		}
		seen++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if seen != len(prompts) {
		t.Fatalf("%d responses logged for %d samples", seen, len(prompts))
	}
}
