// Package generate runs autoregressive decoding of a causal language model
// through a backend.Session: a prefill of the prompts, then one step per
// generated token with the attention keys and values carried from step to
// step (the KV cache), greedy or beam search, on one sequence or a batch,
// with a naive no-cache path beside it that recomputes the whole sequence at
// every step (the oracle the cached path is tested against).
//
// The decoder's I/O follows the Hugging Face optimum ONNX export of a
// decoder "with past":
//
//	input_ids                 int64 [batch, seq]
//	attention_mask            int64 [batch, past+seq]    1 = real token, 0 = padding
//	position_ids              int64 [batch, seq]         (optional input)
//	past_key_values.N.key     float [batch, kv_heads, past, head_dim]   N = 0..layers-1
//	past_key_values.N.value   float [batch, kv_heads, past, head_dim]
//	→ logits                  float [batch, seq, vocab]
//	→ present.N.key           float [batch, kv_heads, past+seq, head_dim]
//	→ present.N.value         float [batch, kv_heads, past+seq, head_dim]
//
// The three integer inputs may also be int32, and the cache float16 (raw
// half bits in uint16) as well as float32; the logits may be float16 too.
// New checks a session against this contract before anything runs.
//
// Batches are left-padded, as Hugging Face pads decoder prompts: each row's
// real tokens end at the last column, padded columns have attention mask 0,
// and position ids count the real tokens of the row (padded positions get 1,
// as transformers does). The cache lives in Go memory as the model's own
// past/present tensors: a step's present outputs are written in place (when
// the session supports RunInto) into a buffer that becomes the next step's
// past input, so a plain decode step copies no cache at all; a beam reorder
// or a finished row dropped from the batch gathers the rows once.
package generate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/kvcache"
)

// I/O names of the optimum convention.
const (
	InputIDs      = "input_ids"
	AttentionMask = "attention_mask"
	PositionIDs   = "position_ids"
	Logits        = "logits"
)

// Errors of this package, wrapped with details.
var (
	// ErrContract reports a session whose inputs or outputs do not follow
	// the decoder contract (see the package documentation).
	ErrContract = errors.New("generate: model does not match the decoder contract")
	// ErrNoCache reports cached decoding asked of a model that has no
	// past_key_values inputs and present outputs; such a model can only be
	// run by the naive path.
	ErrNoCache = errors.New("generate: model has no KV cache inputs/outputs")
	// ErrBadInput is wrapped by errors about prompts and configurations.
	ErrBadInput = errors.New("generate: bad input")
)

// Spec is what the decode loop must know of a model beyond its I/O names:
// the cache geometry and the vocabulary width, which New checks against the
// session's declared shapes.
type Spec struct {
	Layers  int // decoder layers (past_key_values.0 … Layers-1)
	KVHeads int // key/value heads per layer
	HeadDim int // elements per head
	Vocab   int // width of the logits rows
	// MaxPositions is the context length (prompt + generated tokens) the
	// model supports, e.g. 2048 for GPT-J and 4096 for Llama 2; 0 means
	// unchecked.
	MaxPositions int
	// PadID is the token fed at padded (masked) positions; its value does
	// not change any real token's output. Usually the EOS.
	PadID int32
}

func (s Spec) check() error {
	if s.Layers <= 0 || s.KVHeads <= 0 || s.HeadDim <= 0 {
		return fmt.Errorf("%w: spec layers %d, kv heads %d, head dim %d must all be positive", ErrBadInput, s.Layers, s.KVHeads, s.HeadDim)
	}
	if s.Vocab < 2 {
		return fmt.Errorf("%w: spec vocabulary %d is smaller than 2", ErrBadInput, s.Vocab)
	}
	if s.MaxPositions < 0 {
		return fmt.Errorf("%w: spec MaxPositions %d is negative", ErrBadInput, s.MaxPositions)
	}
	if s.PadID < 0 || int(s.PadID) >= s.Vocab {
		return fmt.Errorf("%w: spec PadID %d outside the vocabulary [0, %d)", ErrBadInput, s.PadID, s.Vocab)
	}
	return nil
}

// BytesPerToken is the cache memory of one token of one sequence in a model
// with this spec and cache type: 2 × Layers × KVHeads × HeadDim × element
// size (the arithmetic of kvcache.Config.BytesPerToken).
func (s Spec) BytesPerToken(cache backend.DType) int64 {
	return kvcache.Config{Layers: s.Layers, KVHeads: s.KVHeads, HeadDim: s.HeadDim, DType: cache}.BytesPerToken()
}

// intoRunner is implemented by sessions that write outputs into caller
// buffers (backend/ort.Session).
type intoRunner interface {
	RunInto(ctx context.Context, in, out []backend.Tensor) error
}

// Model is a decoder session checked against the contract. It holds no
// per-sequence state: every generation call builds its own, so a Model is
// safe for concurrent use when its session is.
type Model struct {
	sess       backend.Session
	into       intoRunner
	spec       Spec
	idType     backend.DType // input_ids
	maskType   backend.DType
	posType    backend.DType // 0 when the model takes no position_ids
	cacheType  backend.DType // 0 for a model without cache
	logitsType backend.DType
	past       []string // 2*Layers input names: key 0, value 0, key 1, …
	present    []string // 2*Layers output names
	outputs    []string // session outputs in order
	states     sync.Pool
}

// New checks s against the decoder contract for spec and returns the model.
// Every input of s must be one the contract names; the logits must be
// [batch, seq, Vocab]. A model with past_key_values inputs must have the
// matching present outputs (a model exported without them cannot carry its
// cache and gets a clear error); a model with neither is accepted for the
// naive path only. The session stays owned by the caller.
func New(s backend.Session, spec Spec) (*Model, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%w: nil session", ErrBadInput)
	}
	m := &Model{sess: s, spec: spec}
	if r, ok := s.(intoRunner); ok {
		m.into = r
	}
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	ins := map[string]backend.Info{}
	for _, in := range s.Inputs() {
		ins[in.Name] = in
	}
	outs := map[string]backend.Info{}
	for _, o := range s.Outputs() {
		outs[o.Name] = o
		m.outputs = append(m.outputs, o.Name)
	}
	intInput := func(name string, required bool) backend.DType {
		in, ok := ins[name]
		if !ok {
			if required {
				bad("input %q missing (model inputs: %s)", name, infoNames(s.Inputs()))
			}
			return 0
		}
		if in.DType != backend.Int64 && in.DType != backend.Int32 {
			bad("input %q is %v, want int64 or int32", name, in.DType)
		}
		if !dynamic(in.Shape, 2) {
			bad("input %q has shape %s, want dynamic [batch, seq]", name, backend.FormatShape(in.Shape))
		}
		return in.DType
	}
	m.idType = intInput(InputIDs, true)
	m.maskType = intInput(AttentionMask, true)
	m.posType = intInput(PositionIDs, false)

	cacheShape := func(kind, name string, info backend.Info) {
		sh := info.Shape
		if len(sh) != 4 || (sh[1] >= 0 && sh[1] != int64(spec.KVHeads)) || (sh[3] >= 0 && sh[3] != int64(spec.HeadDim)) || sh[2] >= 0 || sh[0] >= 0 {
			bad("%s %q has shape %s, want [batch, %d, ?, %d] with dynamic batch and length", kind, name, backend.FormatShape(sh), spec.KVHeads, spec.HeadDim)
		}
		if info.DType != backend.Float32 && info.DType != backend.Float16 {
			bad("%s %q is %v, want float32 or float16", kind, name, info.DType)
		}
		if m.cacheType == 0 {
			m.cacheType = info.DType
		} else if info.DType != m.cacheType {
			bad("%s %q is %v, the cache is %v elsewhere", kind, name, info.DType, m.cacheType)
		}
	}
	k0, _ := kvcache.PastNames(0)
	if _, ok := ins[k0]; ok {
		for l := range spec.Layers {
			pk, pv := kvcache.PastNames(l)
			qk, qv := kvcache.PresentNames(l)
			for _, n := range []string{pk, pv} {
				if in, ok := ins[n]; ok {
					cacheShape("input", n, in)
				} else {
					bad("input %q missing: the model has fewer than the %d layers of the spec", n, spec.Layers)
				}
			}
			for _, n := range []string{qk, qv} {
				if o, ok := outs[n]; ok {
					cacheShape("output", n, o)
				} else {
					bad("output %q missing: a model that takes past_key_values must return present.N.key/value for every layer (export it with its cache, e.g. optimum --task text-generation-with-past)", n)
				}
			}
			m.past = append(m.past, pk, pv)
			m.present = append(m.present, qk, qv)
		}
	} else if _, ok := outs["present.0.key"]; ok {
		bad("model returns present.* outputs but takes no past_key_values.* inputs")
	}
	known := map[string]bool{InputIDs: true, AttentionMask: true, PositionIDs: true}
	for _, n := range m.past {
		known[n] = true
	}
	for _, in := range s.Inputs() {
		if !known[in.Name] {
			bad("unexpected input %q (%v %s): the decode loop feeds only input_ids, attention_mask, position_ids and past_key_values.0..%d", in.Name, in.DType, backend.FormatShape(in.Shape), spec.Layers-1)
		}
	}
	if lo, ok := outs[Logits]; !ok {
		bad("output %q missing (model outputs: %s)", Logits, infoNames(s.Outputs()))
	} else {
		if lo.DType != backend.Float32 && lo.DType != backend.Float16 {
			bad("output %q is %v, want float32 or float16", Logits, lo.DType)
		}
		if len(lo.Shape) != 3 || lo.Shape[0] >= 0 || lo.Shape[1] >= 0 || (lo.Shape[2] >= 0 && lo.Shape[2] != int64(spec.Vocab)) {
			bad("output %q has shape %s, want [batch, seq, %d] with dynamic batch and seq", Logits, backend.FormatShape(lo.Shape), spec.Vocab)
		}
		m.logitsType = lo.DType
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrContract, strings.Join(probs, "; "))
	}
	if m.cacheType == backend.Float16 && m.into == nil {
		return nil, fmt.Errorf("%w: a float16 cache needs a session with RunInto (float16 outputs of dynamic shape)", ErrContract)
	}
	return m, nil
}

func dynamic(shape []int64, rank int) bool {
	if len(shape) != rank {
		return false
	}
	for _, d := range shape {
		if d >= 0 {
			return false
		}
	}
	return true
}

func infoNames(infos []backend.Info) string {
	if len(infos) == 0 {
		return "none"
	}
	n := make([]string, len(infos))
	for i, in := range infos {
		n[i] = fmt.Sprintf("%q", in.Name)
	}
	return strings.Join(n, ", ")
}

// Spec returns the model's spec.
func (m *Model) Spec() Spec { return m.spec }

// HasCache reports whether the model carries a KV cache (past_key_values
// inputs and present outputs); without one only the naive path runs.
func (m *Model) HasCache() bool { return len(m.past) > 0 }

// CacheType is the element type of the cache (backend.Float32 or
// backend.Float16), 0 without a cache.
func (m *Model) CacheType() backend.DType { return m.cacheType }

// checkPrompts validates prompts against the vocabulary and the context
// length with maxNew tokens to come.
func (m *Model) checkPrompts(prompts [][]int32, maxNew int) error {
	if len(prompts) == 0 {
		return fmt.Errorf("%w: no prompts", ErrBadInput)
	}
	for i, p := range prompts {
		if len(p) == 0 {
			return fmt.Errorf("%w: prompt %d is empty", ErrBadInput, i)
		}
		if j := slices.IndexFunc(p, func(t int32) bool { return t < 0 || int(t) >= m.spec.Vocab }); j >= 0 {
			return fmt.Errorf("%w: prompt %d token %d is id %d, outside the model's vocabulary [0, %d) (does the tokenizer match the model?)", ErrBadInput, i, j, p[j], m.spec.Vocab)
		}
		if mp := m.spec.MaxPositions; mp > 0 && len(p)+maxNew > mp {
			return fmt.Errorf("%w: prompt %d has %d tokens; with %d new tokens that exceeds the model's context of %d (truncate the prompt to at most %d tokens)", ErrBadInput, i, len(p), maxNew, mp, max(mp-maxNew, 0))
		}
	}
	return nil
}

// SpecFrom returns def updated with what a session's declared I/O fixes:
// the layer count from its past_key_values.N.key inputs (layers; 0 when it
// takes none, and def's count is kept), the kv heads and head dimension
// from their shape, and the vocabulary from the logits' last dimension. A
// dimension the export leaves symbolic keeps def's value. New checks the
// rest of the contract.
func SpecFrom(s backend.Session, def Spec) (spec Spec, layers int) {
	spec = def
	ins := map[string]backend.Info{}
	for _, in := range s.Inputs() {
		ins[in.Name] = in
	}
	for {
		k, _ := kvcache.PastNames(layers)
		in, ok := ins[k]
		if !ok {
			break
		}
		if layers == 0 && len(in.Shape) == 4 {
			if in.Shape[1] > 0 {
				spec.KVHeads = int(in.Shape[1])
			}
			if in.Shape[3] > 0 {
				spec.HeadDim = int(in.Shape[3])
			}
		}
		layers++
	}
	if layers > 0 {
		spec.Layers = layers
	}
	for _, o := range s.Outputs() {
		if o.Name == Logits && len(o.Shape) == 3 && o.Shape[2] > 0 {
			spec.Vocab = int(o.Shape[2])
		}
	}
	return spec, layers
}

// ErrPrompt is wrapped by CheckPrompt's errors.
var ErrPrompt = errors.New("generate: prompt does not fit the model")

// CheckPrompt checks one prompt against the spec: not empty, every id a
// row of the model's vocabulary, and room in the context for maxNew
// generated tokens.
func (s Spec) CheckPrompt(p []int32, maxNew int) error {
	if len(p) == 0 {
		return fmt.Errorf("%w: empty prompt", ErrPrompt)
	}
	for j, t := range p {
		if t < 0 || int(t) >= s.Vocab {
			return fmt.Errorf("%w: id %d at position %d is outside the model's vocabulary of %d (is the data set tokenized for this model?)", ErrPrompt, t, j, s.Vocab)
		}
	}
	if s.MaxPositions > 0 && len(p)+maxNew > s.MaxPositions {
		return fmt.Errorf("%w: %d prompt ids + %d new tokens exceed the model's context of %d positions", ErrPrompt, len(p), maxNew, s.MaxPositions)
	}
	return nil
}
