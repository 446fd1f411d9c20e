package llama2

// The continuous-batching SUT of a local run, counting samples and
// generated tokens (llm/llmbench's, with Llama 2's decoding rule).

import (
	"context"
	"fmt"

	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/llmbench"
)

// benchmark is a loadgen SUT for one scenario: the continuous-batching SUT,
// with FirstToken withheld in Offline and a count of completed samples and
// tokens (llmbench.SUT). IssueQuery is safe for concurrent use.
type benchmark = llmbench.SUT

// benchmarkConfig configures newBenchmark.
type benchmarkConfig struct {
	sutConfig
	// Offline withholds FirstToken (the Offline scenario).
	Offline bool
}

// newBenchmark starts the SUT on m; Close it after the run.
func newBenchmark(ctx context.Context, m *generate.Model, cfg benchmarkConfig) (*benchmark, error) {
	gen := cfg.Generation
	if gen.IsZero() {
		gen = Generation()
	}
	b, err := llmbench.NewLocal(ctx, m, llmbench.LocalConfig{Prompts: llmbench.Prompts(cfg.Prompts), MaxBatch: cfg.MaxBatch, Generation: gen, Offline: cfg.Offline})
	if err != nil {
		return nil, fmt.Errorf("llama2: %w", err)
	}
	return b, nil
}
