package gptj

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts (mlcommons/inference language/gpt-j: dataset.py, backend.py).
const (
	// benchmarkName is the model name in mlperf.conf.
	benchmarkName = "gptj"
	// beams, MinNewTokens, MaxNewTokens: the reference's generate
	// arguments (num_beams 4, early_stopping, length_penalty 1).
	beams        = 4
	MinNewTokens = 30
	MaxNewTokens = 128
	// maxInputTokens is the prompt truncation length.
	maxInputTokens = 1919
)

// Generation is the reference's beam search. mode chooses the length
// normalisation of the transformers version (see sample.LengthMode; the
// reference's version is not pinned).
func Generation(mode sample.LengthMode) sample.BeamConfig {
	return sample.BeamConfig{Beams: beams, EOS: EOS, MinNewTokens: MinNewTokens, MaxNewTokens: MaxNewTokens,
		LengthPenalty: 1, LengthMode: mode, EarlyStopping: true}
}

// encodeTokens appends the response payload of ids to dst: the generated
// ids as little-endian int64 (the int64 array generate returns, with the
// EOS when the best hypothesis ended on one).
func encodeTokens(dst []byte, ids []int32) []byte {
	for _, t := range ids {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(int64(t)))
	}
	return dst
}

// DecodeTokens reads a response payload written by EncodeTokens.
func DecodeTokens(b []byte) ([]int32, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("gptj: response of %d bytes is not a whole number of int64 ids", len(b))
	}
	out := make([]int32, len(b)/8)
	for i := range out {
		v := int64(binary.LittleEndian.Uint64(b[8*i:]))
		if v < 0 || v > 1<<31-1 {
			return nil, fmt.Errorf("gptj: response id %d at position %d is not a token id", v, i)
		}
		out[i] = int32(v)
	}
	return out, nil
}

// promptFunc returns the input ids of a loaded sample.
type promptFunc func(loadgen.SampleIndex) ([]int32, error)

// Model is GPT-J summarisation for the harness: each Predict call runs a
// beam search per sample (the samples of a call batched together, beams ×
// samples rows) and answers the best hypothesis as int64 ids, with its
// length in Tokens. Safe for concurrent use when the session is.
type Model struct {
	gen     *generate.Model
	prompts promptFunc
	beam    sample.BeamConfig
}

// New checks sess against the decoder contract of config c and returns the
// model; beam is usually Generation(...).
func New(sess backend.Session, c config, prompts promptFunc, beam sample.BeamConfig) (*Model, error) {
	return NewSpec(sess, c.Spec(), prompts, beam)
}

// NewSpec is New for a decode-loop spec (SpecOf derives one from a model
// file's declared I/O).
func NewSpec(sess backend.Session, spec generate.Spec, prompts promptFunc, beam sample.BeamConfig) (*Model, error) {
	g, err := generate.New(sess, spec)
	if err != nil {
		return nil, fmt.Errorf("gptj: %w", err)
	}
	if prompts == nil {
		return nil, fmt.Errorf("gptj: no prompts")
	}
	return &Model{gen: g, prompts: prompts, beam: beam}, nil
}

// Generate returns the best hypothesis of each prompt.
func (m *Model) Generate(ctx context.Context, prompts [][]int32) ([][]int32, error) {
	hs, err := m.gen.Beam(ctx, prompts, m.beam)
	if err != nil {
		return nil, fmt.Errorf("gptj: %w", err)
	}
	out := make([][]int32, len(hs))
	for i, h := range hs {
		out[i] = h[0].Tokens
	}
	return out, nil
}

// Predict implements harness.Model.
func (m *Model) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	prompts := make([][]int32, len(idx))
	for i, x := range idx {
		p, err := m.prompts(x)
		if err != nil {
			return fmt.Errorf("gptj: sample %d: %w", x, err)
		}
		prompts[i] = p
	}
	toks, err := m.Generate(ctx, prompts)
	if err != nil {
		return err
	}
	for i, t := range toks {
		// Tokens is the id count LoadGen logs as token_count (TEST06's
		// length check); the framework reports the first id as the first
		// token (Instance.FirstTokenBytes).
		out[i].Data, out[i].Tokens = encodeTokens(nil, t), len(t)
	}
	return nil
}
