package llmbench

// One path for every LLM benchmark on remote serving engines (--backend
// openai or sglang): the benchmark gives its prompts (ids and text), its
// tokenizer's mapping of text back to ids and its vocabulary; the engine
// opens the servers (remote/openai); this wraps the SUT for the scenario
// and writes TEST06 after a compliance run.

import (
	"fmt"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/remote/openai"
)

// RemoteConfig is a benchmark's part of a run on remote serving engines.
type RemoteConfig struct {
	// Name is the benchmark's name, for messages.
	Name string
	// QSL holds the samples; Prompt gives a loaded one's prompt, as ids
	// (the reference's input ids, template and BOS included) and as text.
	QSL    loadgen.QSL
	Prompt func(loadgen.SampleIndex) (openai.Prompt, error)
	// DataPath is the data set file, for the run's description.
	DataPath string
	// Encode and Chunk turn generated text into ids where a server
	// returns text only (openai.Config).
	Encode, Chunk func(string) []int32
	// ProbeIDs are a short prompt of valid ids with which the client asks
	// each server whether it takes ids.
	ProbeIDs []int32
	// Vocab is the vocabulary size: a server's id outside it fails.
	Vocab int
	// Chat says that the reference applies the model's chat template.
	Chat bool
	// Sampling are the reference's sampling settings (nil: greedy).
	Sampling *openai.Sampling
	// MaxNew is --max-new-tokens; MaxNewDefault the reference's.
	MaxNew, MaxNewDefault int
	// EOS is the end-of-sequence id TEST06 checks.
	EOS int64
	// NoTEST06 says that the benchmark's compliance tests do not include
	// TEST06 (gpt-oss-120b: TEST07 and TEST09, verified from the logs by
	// package compliance): a run with an audit.config writes no TEST06.
	NoTEST06 bool
	// Close, if set, releases the data after the run.
	Close func() error
}

// OpenRemote opens the run's remote engines for c through env.Engine and
// returns the instance the loadgen runs: the engines' SUT (FirstToken
// withheld in Offline), counted; a description; TEST06 after a run with
// an audit.config. On error c.Close is not called.
func OpenRemote(env *spec.OpenRequest, c RemoteConfig) (*spec.Instance, error) {
	sut, err := env.Engine.OpenCompletions(openai.Config{Prompt: c.Prompt, Encode: c.Encode, Chunk: c.Chunk, MaxTokens: c.MaxNew,
		Sampling: c.Sampling, ProbeIDs: c.ProbeIDs, Vocab: c.Vocab, Chat: c.Chat})
	if err != nil {
		return nil, err
	}
	noteNewTokens(env.Stderr, c.Name, c.MaxNew, c.MaxNewDefault)
	bench := Wrap(sut, env.Scenario == loadgen.Offline)
	return &spec.Instance{
		SUT: bench,
		QSL: c.QSL,
		Describe: fmt.Sprintf("%s: %s %s (%s), model %s over --backend %s (%s, max_tokens %d, %d requests in flight at most), %d samples in %s",
			c.Name, env.Scenario, env.Mode, env.ModelName, env.Model, env.Backend, describeSampling(c.Sampling), c.MaxNew, sut.MaxInFlight(), c.QSL.TotalSampleCount(), c.DataPath),
		After: After(env, bench, c.Name, "generated tokens", !c.NoTEST06, c.EOS),
		Close: func() error {
			err := bench.Close()
			if c.Close != nil {
				if cerr := c.Close(); err == nil {
					err = cerr
				}
			}
			return err
		},
	}, nil
}

// describeSampling is the sampling settings for the run's description.
func describeSampling(s *openai.Sampling) string {
	if s == nil || (s.Temperature == 0 && s.TopP == 1 && s.TopK == nil) {
		d := "greedy"
		if s != nil && s.Seed != nil {
			d += fmt.Sprintf(", seed %d", *s.Seed)
		}
		return d
	}
	d := fmt.Sprintf("temperature %g, top_p %g", s.Temperature, s.TopP)
	if s.TopK != nil {
		d += fmt.Sprintf(", top_k %d", *s.TopK)
	}
	if s.Seed != nil {
		d += fmt.Sprintf(", seed %d", *s.Seed)
	}
	return d
}
