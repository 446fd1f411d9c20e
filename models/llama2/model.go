package llama2

import (
	"context"
	"fmt"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/sample"
	"github.com/mlperf-go/inference/loadgen"
)

// Benchmark facts (mlcommons/inference language/llama2-70b: SUT.py, mlperf.conf).
const (
	// benchmarkName is the model name in mlperf.conf (Offline and Server).
	benchmarkName = "llama2-70b"
	// interactiveName is the model name of the interactive Server run
	// (TTFT ≤ 450 ms, TPOT ≤ 40 ms).
	interactiveName = "llama2-70b-interactive"
	// maxNewTokensDefault, MinNewTokens: the reference's generate arguments.
	maxNewTokensDefault = 1024
	minNewTokens        = 1
	// maxInputTokens bounds tok_input (the preprocessing keeps < 1024).
	maxInputTokens = 1024
)

// Generation is the reference's greedy decoding: EOS 2 masked for the
// first token, kept when produced, at most 1024 new tokens.
func Generation() sample.GreedyConfig {
	return sample.GreedyConfig{EOS: EOS, MinNewTokens: minNewTokens, MaxNewTokens: maxNewTokensDefault}
}

// encodeTokens appends the response payload of ids to dst: every generated
// id, first token included, as little-endian int32 (what the evaluator and
// TEST06 read with --dtype int32).
func encodeTokens(dst []byte, ids []int32) []byte { return generate.EncodeInt32(dst, ids) }

// DecodeTokens reads a response payload written by EncodeTokens.
func DecodeTokens(b []byte) ([]int32, error) {
	ids, err := generate.DecodeInt32(b)
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return ids, nil
}

// New checks sess against the decoder contract of config c (the official
// export's I/O, see llm/generate) and returns the decode model.
func New(sess backend.Session, c config) (*generate.Model, error) {
	m, err := generate.New(sess, c.Spec())
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return m, nil
}

// newFromSpec is New for a spec derived from a model file (see
// SpecFromSession) rather than a Config.
func newFromSpec(sess backend.Session, spec generate.Spec) (*generate.Model, error) {
	m, err := generate.New(sess, spec)
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return m, nil
}

// promptFunc returns the tok_input ids of a loaded sample.
type promptFunc func(loadgen.SampleIndex) ([]int32, error)

// sutConfig configures NewSUT.
type sutConfig struct {
	// Prompts gives the tok_input ids of a loaded sample.
	Prompts promptFunc
	// MaxBatch is the number of sequences decoded together (continuous
	// batching); at least 1.
	MaxBatch int
	// Generation is the decoding rule; the zero value means Generation().
	Generation sample.GreedyConfig
}

// newSUT returns the Llama 2 system under test: greedy decoding with
// continuous batching; the first token goes to the loadgen's FirstToken
// (Server) and every response holds all generated ids as int32, first
// token included, with Tokens set (n_tokens = length, TEST06's checks).
// Close it after the run.
func newSUT(ctx context.Context, m *generate.Model, cfg sutConfig) (*generate.SUT, error) {
	if cfg.Generation.IsZero() {
		cfg.Generation = Generation()
	}
	s, err := m.NewSUT(ctx, generate.SUTConfig{
		BatcherConfig: generate.BatcherConfig{GreedyConfig: cfg.Generation, MaxBatch: cfg.MaxBatch},
		Prompt:        cfg.Prompts,
		Encode:        encodeTokens,
	})
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return s, nil
}

// specFromSession returns the decode-loop spec of a model file's session:
// the layer count from its past_key_values.N.key inputs, the kv heads and
// head dimension from their shape, the vocabulary from the logits' last
// dimension; a dimension the export leaves symbolic takes the 70B value.
// MaxPositions is 4096 and PadID the EOS, as Llama 2. The full contract is
// checked by New.
func specFromSession(s backend.Session) generate.Spec {
	spec, _ := generate.SpecFrom(s, Configs[size70B].Spec())
	return spec
}
