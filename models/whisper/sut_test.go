package whisper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/accuracy/wer"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
)

// fakeModel "transcribes" a waveform of n samples into " hi" n times,
// then the end token; it records batch sizes.
type fakeModel struct {
	mu      sync.Mutex
	batches []int
	fail    error
}

// 4879 is " hi" in multilingual.tiktoken.
var fakeIDs = []int32{4879}

func (f *fakeModel) Transcribe(ctx context.Context, waves [][]float32, gen Generation, first TokenFunc) ([][]int32, error) {
	f.mu.Lock()
	f.batches = append(f.batches, len(waves))
	f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	out := make([][]int32, len(waves))
	for i, w := range waves {
		for range len(w) {
			out[i] = append(out[i], fakeIDs...)
		}
		out[i] = append(out[i], gen.EOT)
		first(i, out[i][0])
	}
	return out, nil
}

func waveOf(n int) func(loadgen.SampleIndex) ([]float32, error) {
	return func(i loadgen.SampleIndex) ([]float32, error) {
		if int(i) >= n {
			return nil, fmt.Errorf("sample %d not loaded", i)
		}
		return make([]float32, int(i)+1), nil
	}
}

// TestSUTBatchesAndEncodes: 7 samples with batch 3 run in batches of at
// most 3; each response is the transcript's labels as int64, Tokens the
// generated ids with the end token, and its first token was reported
// before it completed.
func TestSUTBatchesAndEncodes(t *testing.T) {
	tok := realTokenizer(t)
	m := &fakeModel{}
	s, err := newSUT(context.Background(), sutConfig{Model: m, Tokenizer: tok, Waveform: waveOf(7), MaxBatch: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := loadgentest.NewRecorder()
	var samples []loadgen.Sample
	for i := range 7 {
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(100 + i), Index: loadgen.SampleIndex(i)})
	}
	s.IssueQuery(context.Background(), samples, rec)
	got := rec.Wait(7)
	for i := range 7 {
		r := got[loadgen.ResponseID(100+i)]
		text, err := wer.DecodeResponse(r.Data)
		want := ""
		for range i + 1 {
			want += " hi"
		}
		want = want[1:] // stripped
		if err != nil || r.Err != nil || text != want || r.Tokens != i+2 {
			t.Errorf("sample %d: %q, %d tokens, %v %v; want %q", i, text, r.Tokens, err, r.Err, want)
		}
		if ft, err := wer.DecodeResponse(rec.First(loadgen.ResponseID(100 + i))); err != nil || ft != "hi" {
			t.Errorf("sample %d: first token %q %v", i, ft, err)
		}
	}
	if s.Done() != 7 {
		t.Errorf("Done %d after 7 samples", s.Done())
	}
	if len(rec.FirstTokens()) != 7 {
		t.Errorf("%d first tokens for 7 samples", len(rec.FirstTokens()))
	}
	for _, b := range m.batches {
		if b > 3 {
			t.Errorf("batch of %d > 3", b)
		}
	}
}

// TestSUTFailuresAreSampleErrors: a waveform that cannot be had, a model
// error, and samples issued after Close complete with an error, never
// hang.
func TestSUTFailuresAreSampleErrors(t *testing.T) {
	tok := realTokenizer(t)
	boom := errors.New("boom")
	for name, c := range map[string]struct {
		m     *fakeModel
		n     int
		index loadgen.SampleIndex
		want  string
	}{
		"missing sample": {&fakeModel{}, 1, 5, "sample 5 not loaded"},
		"model error":    {&fakeModel{fail: boom}, 9, 0, "boom"},
	} {
		s, err := newSUT(context.Background(), sutConfig{Model: c.m, Tokenizer: tok, Waveform: waveOf(c.n), MaxBatch: 4, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		rec := loadgentest.NewRecorder()
		s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 1, Index: c.index}}, rec)
		if r := rec.Wait(1)[1]; r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("%s: %v", name, r.Err)
		}
		s.Close()
		rec = loadgentest.NewRecorder()
		s.IssueQuery(context.Background(), []loadgen.Sample{{ID: 2}}, rec)
		if r := rec.Wait(1)[2]; !errors.Is(r.Err, errClosed) {
			t.Errorf("%s: after Close: %v", name, r.Err)
		}
	}
	if _, err := newSUT(context.Background(), sutConfig{Model: &fakeModel{}, Tokenizer: tok, Waveform: waveOf(1)}); err == nil {
		t.Error("batch 0 accepted")
	}
}
