package generate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

func encodeInt32(dst []byte, toks []int32) []byte {
	for _, t := range toks {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(t))
	}
	return dst
}

func TestSUT(t *testing.T) {
	const vocab = 11
	m, _ := fakeCases[1].model(t, vocab)
	ps := prompts(12, 7, vocab, 3)
	ps = append(ps, []int32{vocab}) // a bad sample fails on its own
	cfg := SUTConfig{
		BatcherConfig: BatcherConfig{GreedyConfig: sample.GreedyConfig{EOS: 2, MinNewTokens: 1, MaxNewTokens: 8}, MaxBatch: 4},
		Prompt: func(i loadgen.SampleIndex) ([]int32, error) {
			if int(i) >= len(ps) {
				return nil, errors.New("not loaded")
			}
			return ps[i], nil
		},
		Encode: encodeInt32,
	}
	s, err := m.NewSUT(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := loadgentest.NewRecorder()
	var samples []loadgen.Sample
	for i := range len(ps) + 1 {
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(100 + i), Index: loadgen.SampleIndex(i)})
	}
	s.IssueQuery(context.Background(), samples[:5], rec)
	s.IssueQuery(context.Background(), samples[5:], rec)
	resps := rec.Wait(len(samples))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, smp := range samples {
		r := resps[smp.ID]
		if n := rec.Count(smp.ID); n != 1 {
			t.Fatalf("sample %d completed %d times", i, n)
		}
		if i >= len(ps)-1 {
			if r.Err == nil {
				t.Errorf("sample %d: no error", i)
			}
			continue
		}
		want := refGreedy(t, vocab, ps[i], cfg.GreedyConfig)
		if r.Err != nil || !bytes.Equal(r.Data, encodeInt32(nil, want)) || r.Tokens != len(want) {
			t.Errorf("sample %d: %v %x (%d tokens), want %v", i, r.Err, r.Data, r.Tokens, want)
		}
		// TEST06: the first token equals data[0]
		if !bytes.Equal(rec.First(smp.ID), r.Data[:4]) {
			t.Errorf("sample %d: first token %x, response starts %x", i, rec.First(smp.ID), r.Data[:4])
		}
	}
}
