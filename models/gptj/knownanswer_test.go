//go:build cgo

package gptj

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
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// TestKnownAnswerEndToEnd runs an accuracy-mode Offline test of the
// known-answer decoder through the GPT-J model's beam search (4 beams,
// batched by the pool, left-padded) and the loadgen's accuracy log, and
// checks that every logged response is the counting sequence, MaxNewTokens
// long (wrapping past 94).
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
	var prompts [][]int32
	for i, last := range []int32{90, 10, 85, 60, 88, 40, 70} {
		p := []int32{7}
		for j := range 2 + 4*(i%3) {
			p = append(p, int32(3+(7*j+11*i)%90))
		}
		prompts = append(prompts, append(p, last))
	}
	beam := sample.BeamConfig{Beams: 4, EOS: knownAnswerEOS, MinNewTokens: 3, MaxNewTokens: 14, LengthPenalty: 1, EarlyStopping: true}
	want := func(p []int32) []int32 {
		var out []int32
		tok := p[len(p)-1]
		for len(out) < beam.MaxNewTokens {
			tok = knownAnswerNext(tok)
			out = append(out, tok)
		}
		return out
	}
	m, err := New(s, knownAnswerConfig, func(i loadgen.SampleIndex) ([]int32, error) {
		if int(i) >= len(prompts) {
			return nil, fmt.Errorf("no sample %d", i)
		}
		return prompts[i], nil
	}, beam)
	if err != nil {
		t.Fatal(err)
	}
	pool := harness.NewPool(m, harness.PoolConfig{Batch: 3, Workers: 1})
	defer pool.Close()
	st := loadgen.DefaultSettings()
	st.Scenario, st.Mode = loadgen.Offline, loadgen.AccuracyOnly
	out := t.TempDir()
	res, err := loadgen.Run(context.Background(), pool, &loadgentest.MemQSL{Total: len(prompts), Performance: len(prompts)}, st, loadgen.LogSettings{OutDir: out, Prefix: "mlperf_log_"})
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
