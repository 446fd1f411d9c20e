package llmbench

// One path for every LLM benchmark on remote serving engines (--backend
// openai or sglang): the benchmark gives its prompts (ids and text), its
// tokenizer's mapping of text back to ids and its vocabulary; the engine
// opens the servers (remote/openai); this wraps the SUT for the scenario
// and writes TEST06 after a compliance run.

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mlperf-go/inference/accuracy"
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
	// MaxNew is --max-new-tokens; MaxNewDefault the reference's.
	MaxNew, MaxNewDefault int
	// EOS is the end-of-sequence id TEST06 checks.
	EOS int64
	// Close, if set, releases the data after the run.
	Close func() error
}

// OpenRemote opens the run's remote engines for c through env.Engine and
// returns the instance the loadgen runs: the engines' SUT (FirstToken
// withheld in Offline), counted; a description; TEST06 after a run with
// an audit.config. On error c.Close is not called.
func OpenRemote(env *spec.OpenRequest, c RemoteConfig) (*spec.Instance, error) {
	sut, err := env.Engine.OpenCompletions(openai.Config{Prompt: c.Prompt, Encode: c.Encode, Chunk: c.Chunk, MaxTokens: c.MaxNew,
		ProbeIDs: c.ProbeIDs, Vocab: c.Vocab, Chat: c.Chat})
	if err != nil {
		return nil, err
	}
	if c.MaxNew != c.MaxNewDefault {
		fmt.Fprintf(env.Stderr, "%s: --max-new-tokens %d (the reference generates up to %d): not a compliant run\n", c.Name, c.MaxNew, c.MaxNewDefault)
	}
	bench := Wrap(sut, env.Scenario == loadgen.Offline)
	return &spec.Instance{
		SUT: bench,
		QSL: c.QSL,
		Describe: fmt.Sprintf("%s: %s %s (%s), model %s over --backend %s (greedy, max_tokens %d, %d requests in flight at most), %d samples in %s",
			c.Name, env.Scenario, env.Mode, env.ModelName, env.Model, env.Backend, c.MaxNew, sut.MaxInFlight(), c.QSL.TotalSampleCount(), c.DataPath),
		After: func(ctx context.Context, res *loadgen.Result) error {
			samples, tokens := bench.Done()
			fmt.Fprintf(env.Stderr, "%s: %d samples, %d generated tokens\n", c.Name, samples, tokens)
			if env.AuditConf == "" {
				return nil
			}
			return WriteTEST06(filepath.Join(env.Out, "mlperf_log_accuracy.json"), env.Scenario.String(), env.Out, accuracy.Int32, c.EOS, env.Stdout, env.Stderr)
		},
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
