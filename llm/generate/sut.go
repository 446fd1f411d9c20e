package generate

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/mlperf-go/inference/loadgen"
)

// SUTConfig configures a continuous-batching SUT.
type SUTConfig struct {
	BatcherConfig
	// Prompt returns the prompt of a loaded sample (not modified; it must
	// stay valid until the sample completes).
	Prompt func(loadgen.SampleIndex) ([]int32, error)
	// Encode appends the response bytes of tokens to dst and returns it
	// (e.g. little-endian int32 ids for Llama 2).
	Encode func(dst []byte, tokens []int32) []byte
}

// SUT is a loadgen system under test over a Batcher: every issued sample
// is submitted at once and joins the running batch as soon as a row is
// free (continuous batching, for Offline and Server alike). When the
// loadgen's Completer is a loadgen.TokenCompleter, the first token of each
// sample is reported through FirstToken (encoded like the response) the
// moment it is known; it is also the first token of the final response,
// whose Tokens is the number of generated tokens. IssueQuery never blocks
// and is safe for concurrent use.
type SUT struct {
	bt   *Batcher
	cfg  SUTConfig
	done chan error
	once sync.Once
	err  error
}

// NewSUT checks cfg and starts the batcher on its own goroutine; Close stops
// it. ctx bounds the batcher's life (cancelling it fails what is running).
func (m *Model) NewSUT(ctx context.Context, cfg SUTConfig) (*SUT, error) {
	if cfg.Prompt == nil || cfg.Encode == nil {
		return nil, fmt.Errorf("%w: SUT needs Prompt and Encode", ErrBadInput)
	}
	bt, err := m.NewBatcher(cfg.BatcherConfig)
	if err != nil {
		return nil, err
	}
	s := &SUT{bt: bt, cfg: cfg, done: make(chan error, 1)}
	go func() { s.done <- bt.Run(ctx) }()
	return s, nil
}

// IssueQuery submits every sample; responses come through c.
func (s *SUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	tc, _ := c.(loadgen.TokenCompleter)
	for _, smp := range samples {
		id := smp.ID
		p, err := s.cfg.Prompt(smp.Index)
		if err != nil {
			c.Complete(loadgen.Response{ID: id, Err: fmt.Errorf("generate: sample %d: %w", smp.Index, err)})
			continue
		}
		r := &Request{
			Prompt: p,
			Done: func(toks []int32, err error) {
				if err != nil {
					c.Complete(loadgen.Response{ID: id, Err: err})
					return
				}
				c.Complete(loadgen.Response{ID: id, Data: s.cfg.Encode(nil, toks), Tokens: len(toks)})
			},
		}
		if tc != nil {
			r.FirstToken = func(tok int32) { tc.FirstToken(id, s.cfg.Encode(nil, []int32{tok})) }
		}
		s.bt.Submit(r)
	}
}

// Close stops accepting samples, waits until the submitted ones are done
// and returns the batcher's error, if any. Close is idempotent.
func (s *SUT) Close() error {
	s.once.Do(func() {
		s.bt.Close()
		s.err = <-s.done
	})
	return s.err
}

// EncodeInt32 appends ids to dst as little-endian int32, the response
// payload of the LLM benchmarks (every generated id, first token included:
// what the evaluators and TEST06 read with --dtype int32).
func EncodeInt32(dst []byte, ids []int32) []byte {
	for _, t := range ids {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(t))
	}
	return dst
}

// DecodeInt32 reads a payload written by EncodeInt32.
func DecodeInt32(b []byte) ([]int32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("generate: response of %d bytes is not a whole number of int32 ids", len(b))
	}
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}
