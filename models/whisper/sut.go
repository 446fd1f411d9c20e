package whisper

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

// transcriber turns a batch of waveforms into generated ids: the local
// Model, or a served one.
type transcriber interface {
	Transcribe(ctx context.Context, waves [][]float32, gen Generation, first TokenFunc) ([][]int32, error)
}

// sutConfig configures newSUT.
type sutConfig struct {
	// Model transcribes.
	Model transcriber
	// Tokenizer decodes the generated ids.
	Tokenizer *tokenizer.Whisper
	// Waveform returns a loaded sample's 16 kHz waveform (not modified).
	Waveform func(loadgen.SampleIndex) ([]float32, error)
	// MaxBatch is the most samples transcribed together (at least 1).
	MaxBatch int
	// Workers is the number of batches in flight (at least 1).
	Workers int
	// Generation is the decoding rule; the zero value means the
	// reference's (defaultGeneration).
	Generation Generation
}

// defaultGeneration is the reference's decoding: the prompt
// <|startoftranscript|><|en|><|transcribe|><|notimestamps|>, greedy,
// until <|endoftext|> or 200 new tokens.
func defaultGeneration(tok *tokenizer.Whisper) (Generation, error) {
	p, err := tok.TranscribePrompt(language)
	if err != nil {
		return Generation{}, fmt.Errorf("whisper: %w", err)
	}
	return Generation{Prompt: p, EOT: tok.EOT(), MaxNewTokens: maxNewTokens}, nil
}

// errClosed fails the samples issued to a closed SUT.
var errClosed = errors.New("whisper: SUT closed")

// batchSUT is the Whisper system under test: issued samples queue up and
// workers transcribe them in batches of up to MaxBatch (all that are
// waiting, so an Offline query runs in full batches). When the loadgen's
// Completer is a loadgen.TokenCompleter each sample's first token is
// reported the moment it is known (encoded like the response); every
// response holds the label indices of the transcript and Tokens, the
// number of generated ids (the end token included, as vLLM counts).
// IssueQuery never blocks and is safe for concurrent use.
type batchSUT struct {
	cfg    sutConfig
	mu     sync.Mutex
	queue  []job
	closed bool
	wake   chan struct{}
	stop   chan struct{} // closed by Close
	wg     sync.WaitGroup
	cancel context.CancelFunc
	done   atomic.Int64
}

type job struct {
	s loadgen.Sample
	c loadgen.Completer
}

// newSUT starts the workers; ctx bounds their life. Close stops them.
func newSUT(ctx context.Context, cfg sutConfig) (*batchSUT, error) {
	if cfg.Model == nil || cfg.Tokenizer == nil || cfg.Waveform == nil {
		return nil, fmt.Errorf("whisper: SUT needs a model, a tokenizer and a waveform source")
	}
	if cfg.MaxBatch < 1 || cfg.Workers < 1 {
		return nil, fmt.Errorf("whisper: batch %d and workers %d must be at least 1", cfg.MaxBatch, cfg.Workers)
	}
	if cfg.Generation.MaxNewTokens == 0 {
		g, err := defaultGeneration(cfg.Tokenizer)
		if err != nil {
			return nil, err
		}
		cfg.Generation = g
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &batchSUT{cfg: cfg, wake: make(chan struct{}, 1), stop: make(chan struct{}), cancel: cancel}
	for range cfg.Workers {
		s.wg.Go(func() { s.work(ctx) })
	}
	return s, nil
}

// IssueQuery queues the samples.
func (s *batchSUT) IssueQuery(_ context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		for _, smp := range samples {
			c.Complete(loadgen.Response{ID: smp.ID, Err: errClosed})
		}
		return
	}
	for _, smp := range samples {
		s.queue = append(s.queue, job{smp, c})
	}
	s.mu.Unlock()
	s.signal()
}

func (s *batchSUT) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take removes up to MaxBatch queued jobs.
func (s *batchSUT) take() ([]job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := min(len(s.queue), s.cfg.MaxBatch)
	b := s.queue[:n:n]
	s.queue = s.queue[n:]
	if len(s.queue) > 0 {
		s.signal() // more for another worker
	}
	return b, s.closed
}

func (s *batchSUT) work(ctx context.Context) {
	for {
		b, closed := s.take()
		if len(b) > 0 {
			s.run(ctx, b)
			continue
		}
		if closed {
			return
		}
		select {
		case <-s.wake:
		case <-s.stop:
		case <-ctx.Done():
			s.failQueued(ctx.Err())
			return
		}
	}
}

func (s *batchSUT) failQueued(err error) {
	s.mu.Lock()
	q := s.queue
	s.queue = nil
	s.mu.Unlock()
	for _, j := range q {
		j.c.Complete(loadgen.Response{ID: j.s.ID, Err: err})
	}
}

// run transcribes one batch and completes its samples.
func (s *batchSUT) run(ctx context.Context, b []job) {
	fail := func(err error) {
		for _, j := range b {
			j.c.Complete(loadgen.Response{ID: j.s.ID, Err: err})
		}
	}
	waves := make([][]float32, len(b))
	for i, j := range b {
		w, err := s.cfg.Waveform(j.s.Index)
		if err != nil {
			fail(fmt.Errorf("whisper: sample %d: %w", j.s.Index, err))
			return
		}
		waves[i] = w
	}
	first := func(row int, tok int32) {
		if tc, ok := b[row].c.(loadgen.TokenCompleter); ok {
			data, _ := encodeResponse(nil, s.cfg.Tokenizer, []int32{tok})
			tc.FirstToken(b[row].s.ID, data)
		}
	}
	ids, err := s.cfg.Model.Transcribe(ctx, waves, s.cfg.Generation, first)
	if err == nil && len(ids) != len(b) {
		err = fmt.Errorf("whisper: %d transcripts for %d samples", len(ids), len(b))
	}
	if err != nil {
		fail(err)
		return
	}
	for i, j := range b {
		data, err := encodeResponse(nil, s.cfg.Tokenizer, ids[i])
		j.c.Complete(loadgen.Response{ID: j.s.ID, Data: data, Tokens: len(ids[i]), Err: err})
	}
	s.done.Add(int64(len(b)))
}

// Done is the number of samples transcribed so far.
func (s *batchSUT) Done() int64 { return s.done.Load() }

// Close stops the workers after the running batches; samples still queued
// fail with errClosed.
func (s *batchSUT) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.failQueued(errClosed)
	close(s.stop)
	s.wg.Wait()
	s.cancel()
	return nil
}
