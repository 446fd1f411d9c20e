package whisper

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/preprocess/logmel"
)

// Benchmark facts (mlcommons/inference speech2text reference_SUT.py,
// QSL.py, mlperf.conf).
const (
	// benchmarkName is the model name in mlperf.conf.
	benchmarkName = "whisper"
	// maxNewTokens is the reference's SamplingParams max_tokens.
	maxNewTokens = 200
	// language is the prompt's language.
	language = "en"
)

// Shape is what the decode loop must know of a model, read from its
// sessions' declared I/O.
type Shape struct {
	Mels, Width, Layers, Heads, HeadDim, Vocab, SourcePos int
}

// Model is Whisper over three sessions of the optimum layout (see
// arch.go), checked against its contract. It holds no per-call state and
// is safe for concurrent use when the sessions are.
type Model struct {
	enc, dec, past backend.Session
	shape          Shape
	mel            *logmel.Extractor
}

// New checks the encoder, decoder and decoder-with-past sessions against
// the optimum contract and returns the model. The sessions stay owned by
// the caller.
func New(enc, dec, past backend.Session) (*Model, error) {
	if enc == nil || dec == nil || past == nil {
		return nil, fmt.Errorf("whisper: nil session")
	}
	var s Shape
	for _, in := range enc.Inputs() {
		if in.Name == inputFeatures && len(in.Shape) == 3 {
			s.Mels = int(in.Shape[1])
		}
	}
	for _, o := range enc.Outputs() {
		if o.Name == lastHiddenState && len(o.Shape) == 3 {
			s.SourcePos, s.Width = int(o.Shape[1]), int(o.Shape[2])
		}
	}
	pastIns := map[string]backend.Info{}
	for _, in := range past.Inputs() {
		pastIns[in.Name] = in
	}
	for {
		in, ok := pastIns[pastNames(s.Layers)[0]]
		if !ok {
			break
		}
		if s.Layers == 0 && len(in.Shape) == 4 {
			s.Heads, s.HeadDim = int(in.Shape[1]), int(in.Shape[3])
		}
		s.Layers++
	}
	for _, o := range dec.Outputs() {
		if o.Name == logitsName && len(o.Shape) == 3 {
			s.Vocab = int(o.Shape[2])
		}
	}
	if s.Mels <= 0 || s.Width <= 0 || s.SourcePos <= 0 || s.Layers <= 0 || s.Heads <= 0 || s.HeadDim <= 0 || s.Vocab <= 0 {
		return nil, fmt.Errorf("%w: whisper: cannot read the model's shape from its I/O (mels %d, width %d, frames %d, layers %d, heads %d × %d, vocabulary %d): is it an optimum export of Whisper (encoder_model.onnx, decoder_model.onnx, decoder_with_past_model.onnx) with fixed feature, head and vocabulary sizes?",
			backend.ErrContract, s.Mels, s.Width, s.SourcePos, s.Layers, s.Heads, s.HeadDim, s.Vocab)
	}
	if s.Mels != 80 && s.Mels != 128 {
		return nil, fmt.Errorf("%w: whisper: encoder takes %d Mel bins, Whisper uses 80 or 128", backend.ErrContract, s.Mels)
	}
	H, D, W := int64(s.Heads), int64(s.HeadDim), int64(s.Width)
	if err := backend.Validate(enc, []backend.Info{{Name: inputFeatures, DType: backend.Float32, Shape: []int64{-1, int64(s.Mels), logmel.NFrames}}},
		[]backend.Info{{Name: lastHiddenState, DType: backend.Float32, Shape: []int64{-1, int64(s.SourcePos), W}}}); err != nil {
		return nil, fmt.Errorf("whisper: %s: %w", encoderFile, err)
	}
	decIn := []backend.Info{{Name: inputIDs, DType: backend.Int64, Shape: []int64{-1, -1}}, {Name: encoderHiddenStates, DType: backend.Float32, Shape: []int64{-1, -1, W}}}
	decOut := []backend.Info{{Name: logitsName, DType: backend.Float32, Shape: []int64{-1, -1, int64(s.Vocab)}}}
	pastIn := []backend.Info{{Name: inputIDs, DType: backend.Int64, Shape: []int64{-1, -1}}}
	pastOut := slices.Clone(decOut)
	for l := range s.Layers {
		p, q := pastNames(l), presentNames(l)
		for i := range 4 {
			shape := []int64{-1, H, -1, D}
			pastIn = append(pastIn, backend.Info{Name: p[i], DType: backend.Float32, Shape: shape})
			decOut = append(decOut, backend.Info{Name: q[i], DType: backend.Float32, Shape: shape})
			if i < 2 {
				pastOut = append(pastOut, backend.Info{Name: q[i], DType: backend.Float32, Shape: shape})
			}
		}
	}
	if err := backend.Validate(dec, decIn, decOut); err != nil {
		return nil, fmt.Errorf("whisper: %s: %w", decoderFile, err)
	}
	if err := backend.Validate(past, pastIn, pastOut); err != nil {
		return nil, fmt.Errorf("whisper: %s: %w", decoderWithPastFile, err)
	}
	mel, err := logmel.New(s.Mels)
	if err != nil {
		return nil, err
	}
	return &Model{enc: enc, dec: dec, past: past, shape: s, mel: mel}, nil
}

// Shape returns the model's shape.
func (m *Model) Shape() Shape { return m.shape }

// Generation is the decoding rule: greedy from Prompt until EOT (kept as
// the last token; a negative EOT never ends decoding) or MaxNewTokens new
// tokens, over the whole vocabulary (vLLM's temperature 0 with the
// reference's SamplingParams).
type Generation struct {
	Prompt       []int32
	EOT          int32
	MaxNewTokens int
}

// Features computes the log-Mel input_features of waveforms, [B, mels,
// 3000], on up to GOMAXPROCS goroutines.
func (m *Model) Features(waves [][]float32) ([]float32, error) {
	size := m.mel.Size()
	out := make([]float32, len(waves)*size)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ferr error
	)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, w := range waves {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := m.mel.Compute(out[i*size:(i+1)*size], w); err != nil {
				mu.Lock()
				ferr = fmt.Errorf("whisper: sample %d: %w", i, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, ferr
}

// TokenFunc is told each row's first generated token as soon as it is
// known (time to first token); it must not block.
type TokenFunc func(row int, token int32)

// Transcribe runs greedy decoding on a batch of 16 kHz waveforms and
// returns each row's generated ids (the EOT included when produced).
// first, when not nil, receives each row's first token.
func (m *Model) Transcribe(ctx context.Context, waves [][]float32, gen Generation, first TokenFunc) ([][]int32, error) {
	if len(waves) == 0 {
		return nil, nil
	}
	feats, err := m.Features(waves)
	if err != nil {
		return nil, err
	}
	return m.Decode(ctx, feats, len(waves), gen, first)
}

// Decode is Transcribe from input_features: B spectrograms of [mels,
// 3000] back to back.
func (m *Model) Decode(ctx context.Context, feats []float32, B int, gen Generation, first TokenFunc) ([][]int32, error) {
	if B < 1 || len(feats) != B*m.mel.Size() {
		return nil, fmt.Errorf("whisper: %d feature values for %d spectrograms of %d × %d", len(feats), B, m.shape.Mels, logmel.NFrames)
	}
	if len(gen.Prompt) == 0 || gen.MaxNewTokens < 1 {
		return nil, fmt.Errorf("whisper: bad generation %+v", gen)
	}
	for _, t := range append(slices.Clone(gen.Prompt), max(gen.EOT, 0)) {
		if t < 0 || int(t) >= m.shape.Vocab {
			return nil, fmt.Errorf("whisper: token %d outside the model's vocabulary [0, %d) (does the tokenizer match the model?)", t, m.shape.Vocab)
		}
	}
	encOut, err := m.enc.Run(ctx, []backend.Tensor{{Name: inputFeatures, DType: backend.Float32,
		Shape: []int64{int64(B), int64(m.shape.Mels), logmel.NFrames}, Data: feats}})
	if err != nil {
		return nil, fmt.Errorf("whisper: encoder: %w", err)
	}
	hidden, err := byName(encOut, lastHiddenState)
	if err != nil {
		return nil, err
	}
	S := len(gen.Prompt)
	ids := make([]int64, 0, B*S)
	for range B {
		for _, t := range gen.Prompt {
			ids = append(ids, int64(t))
		}
	}
	out, err := m.dec.Run(ctx, []backend.Tensor{
		{Name: inputIDs, DType: backend.Int64, Shape: []int64{int64(B), int64(S)}, Data: ids},
		{Name: encoderHiddenStates, DType: backend.Float32, Shape: hidden.Shape, Data: hidden.Data},
	})
	if err != nil {
		return nil, fmt.Errorf("whisper: decoder: %w", err)
	}
	// cache[l] holds layer l's self key, self value, cross key, cross
	// value for the active rows.
	cache := make([][4]backend.Tensor, m.shape.Layers)
	for l := range cache {
		for i, n := range presentNames(l) {
			if cache[l][i], err = byName(out, n); err != nil {
				return nil, err
			}
		}
	}
	logits, err := byName(out, logitsName)
	if err != nil {
		return nil, err
	}
	tokens := make([][]int32, B)
	active := make([]int, B) // batch position → row
	for i := range active {
		active[i] = i
	}
	for {
		next := make([]int64, 0, len(active))
		keep := make([]int, 0, len(active))
		lf, ok := logits.Data.([]float32)
		V := m.shape.Vocab
		seq := int(logits.Shape[1])
		if !ok || len(lf) != len(active)*seq*V {
			return nil, fmt.Errorf("whisper: logits of shape %v for %d rows", logits.Shape, len(active))
		}
		for b, row := range active {
			last := lf[(b*seq+seq-1)*V : (b*seq+seq)*V]
			t := argmax(last)
			tokens[row] = append(tokens[row], t)
			if len(tokens[row]) == 1 && first != nil {
				first(row, t)
			}
			if t != gen.EOT && len(tokens[row]) < gen.MaxNewTokens {
				keep = append(keep, b)
				next = append(next, int64(t))
			}
		}
		if len(keep) == 0 {
			return tokens, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(keep) < len(active) {
			for l := range cache {
				for i := range cache[l] {
					cache[l][i] = gatherRows(cache[l][i], keep)
				}
			}
			act := make([]int, len(keep))
			for i, b := range keep {
				act[i] = active[b]
			}
			active = act
		}
		in := []backend.Tensor{{Name: inputIDs, DType: backend.Int64, Shape: []int64{int64(len(active)), 1}, Data: next}}
		for l := range cache {
			for i, n := range pastNames(l) {
				t := cache[l][i]
				t.Name = n
				in = append(in, t)
			}
		}
		out, err := m.past.Run(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("whisper: decoder with past: %w", err)
		}
		if logits, err = byName(out, logitsName); err != nil {
			return nil, err
		}
		for l := range cache {
			q := presentNames(l)
			for i := range 2 {
				if cache[l][i], err = byName(out, q[i]); err != nil {
					return nil, err
				}
			}
		}
	}
}

// argmax is the index of the first maximum (NaN never wins).
func argmax(v []float32) int32 {
	best := 0
	for i, x := range v {
		if x > v[best] || v[best] != v[best] && x == x {
			best = i
		}
	}
	return int32(best)
}

func byName(ts []backend.Tensor, name string) (backend.Tensor, error) {
	for _, t := range ts {
		if t.Name == name {
			return t, nil
		}
	}
	return backend.Tensor{}, fmt.Errorf("%w: whisper: output %q missing", backend.ErrContract, name)
}

// gatherRows keeps the rows (first dimension) listed in keep of a float32
// tensor.
func gatherRows(t backend.Tensor, keep []int) backend.Tensor {
	d := t.Data.([]float32)
	rows := int(t.Shape[0])
	per := len(d) / rows
	out := make([]float32, len(keep)*per)
	for i, r := range keep {
		copy(out[i*per:(i+1)*per], d[r*per:(r+1)*per])
	}
	shape := slices.Clone(t.Shape)
	shape[0] = int64(len(keep))
	return backend.Tensor{Name: t.Name, DType: t.DType, Shape: shape, Data: out}
}
