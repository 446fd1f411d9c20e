//go:build cgo

package whisper

import (
	"context"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/onnx"
)

// tinySessions opens the three graphs of a config on ONNX Runtime.
func tinySessions(t testing.TB, c config) (enc, dec, past backend.Session) {
	t.Helper()
	open := func(g *onnx.Graph, err error) backend.Session {
		if err != nil {
			t.Fatal(err)
		}
		return orttest.OpenGraph(t, g)
	}
	return open(encoderGraph(c, archSeed)), open(decoderGraph(c, archSeed, false)), open(decoderGraph(c, archSeed, true))
}

// naive decodes without a cache: decoder_model.onnx on the whole sequence
// at every step (the oracle of the cached loop).
func naive(t *testing.T, m *Model, wave []float32, gen Generation) []int32 {
	t.Helper()
	ctx := context.Background()
	feats, err := m.Features([][]float32{wave})
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.enc.Run(ctx, []backend.Tensor{{Name: inputFeatures, DType: backend.Float32, Shape: []int64{1, int64(m.shape.Mels), 3000}, Data: feats}})
	if err != nil {
		t.Fatal(err)
	}
	hidden, _ := byName(out, lastHiddenState)
	hidden.Name = encoderHiddenStates
	seq := slices.Clone(gen.Prompt)
	var got []int32
	for len(got) < gen.MaxNewTokens {
		ids := make([]int64, len(seq))
		for i, v := range seq {
			ids[i] = int64(v)
		}
		o, err := m.dec.Run(ctx, []backend.Tensor{{Name: inputIDs, DType: backend.Int64, Shape: []int64{1, int64(len(ids))}, Data: ids}, hidden})
		if err != nil {
			t.Fatal(err)
		}
		lg, _ := byName(o, logitsName)
		V := m.shape.Vocab
		tok := argmax(lg.Data.([]float32)[(len(seq)-1)*V:])
		got, seq = append(got, tok), append(seq, tok)
		if tok == gen.EOT {
			break
		}
	}
	return got
}

// testWaves are n very different signals: silence, pseudo-random noise
// of growing loudness, and so on in turn.
func testWaves(n int) [][]float32 {
	w := make([][]float32, n)
	x := uint32(1)
	for i := range w {
		w[i] = make([]float32, 16000*(i%3+1)*5)
		if i%3 == 0 {
			continue
		}
		for j := range w[i] {
			x = x*1664525 + 1013904223
			w[i][j] = float32(int32(x)>>16) / 32768 * float32(i%3) / 2
		}
	}
	return w
}

// TestCachedDecodingEqualsNaive: the batched, cached loop (rows finishing
// at different steps are dropped from the cache) gives each row the tokens
// of uncached decoding of that row alone, with an EOT chosen so that some
// rows stop early.
func TestCachedDecodingEqualsNaive(t *testing.T) {
	enc, dec, past := tinySessions(t, configs[sizeTiny])
	m, err := New(enc, dec, past)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Shape(); s.Layers != 2 || s.Heads != 4 || s.HeadDim != 16 || s.Vocab != 51866 || s.Width != 64 || s.SourcePos != 1500 || s.Mels != 128 {
		t.Fatalf("shape %+v", s)
	}
	waves := testWaves(3)
	gen := Generation{Prompt: []int32{50258, 50259, 50360, 50364}, EOT: -1, MaxNewTokens: 12}
	// pick as EOT a token that one row produces mid-way
	probe := naive(t, m, waves[1], gen)
	gen.EOT = probe[5]
	var firsts []int32
	got, err := m.Transcribe(context.Background(), waves, gen, func(row int, tok int32) { firsts = append(firsts, tok) })
	if err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for i, w := range waves {
		want := naive(t, m, w, gen)
		if !slices.Equal(got[i], want) {
			t.Errorf("row %d: cached %v, naive %v", i, got[i], want)
		}
		if len(want) < gen.MaxNewTokens {
			stopped++
		}
	}
	if stopped == 0 || stopped == len(waves) {
		t.Errorf("%d of %d rows stopped early: the test should mix both", stopped, len(waves))
	}
	if len(firsts) != len(waves) {
		t.Errorf("%d first tokens for %d rows", len(firsts), len(waves))
	}
}

// TestNewRefusesOtherModels: sessions swapped or of another model are
// contract errors naming the file.
func TestNewRefusesOtherModels(t *testing.T) {
	enc, dec, past := tinySessions(t, configs[sizeTiny])
	if _, err := New(enc, past, dec); err == nil {
		t.Error("decoders swapped accepted")
	}
	if _, err := New(dec, dec, past); err == nil {
		t.Error("decoder as encoder accepted")
	}
	g := onnx.NewGraph(onnx.Config{})
	x := g.Input("x", onnx.Float, onnx.Sym("n"))
	g.Output(g.Relu(x), onnx.Float, onnx.Sym("n"))
	other := orttest.OpenGraph(t, g)
	if _, err := New(enc, dec, other); err == nil {
		t.Error("a Relu model accepted")
	}
}

// TestTranscribeRefusesBadGenerations: prompt ids outside the vocabulary
// (a tokenizer of another model) and empty generations are errors.
func TestTranscribeRefusesBadGenerations(t *testing.T) {
	m, err := New(tinySessions(t, configs[sizeTiny]))
	if err != nil {
		t.Fatal(err)
	}
	w := testWaves(1)
	for _, g := range []Generation{
		{Prompt: []int32{60000}, EOT: 50257, MaxNewTokens: 2},
		{Prompt: nil, EOT: 50257, MaxNewTokens: 2},
		{Prompt: []int32{50258}, EOT: 50257, MaxNewTokens: 0},
	} {
		if _, err := m.Transcribe(context.Background(), w, g, nil); err == nil {
			t.Errorf("%+v accepted", g)
		}
	}
}

// BenchmarkTranscribeTiny is one batch of 4 clips (features, encoder,
// 32 greedy steps) on the tiny model, single-threaded (go test -bench
// TranscribeTiny ./models/whisper).
func BenchmarkTranscribeTiny(b *testing.B) {
	m, err := New(tinySessions(b, configs[sizeTiny]))
	if err != nil {
		b.Fatal(err)
	}
	waves := testWaves(4)
	gen := Generation{Prompt: []int32{50258, 50259, 50360, 50364}, EOT: -1, MaxNewTokens: 32}
	for b.Loop() {
		if _, err := m.Transcribe(context.Background(), waves, gen, nil); err != nil {
			b.Fatal(err)
		}
	}
}
