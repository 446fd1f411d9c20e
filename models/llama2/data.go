package llama2

// A run's samples: the OpenOrca parquet (or the synthetic one), its
// tokenized prompts and the QSL.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mlperf-go/inference/benchmark/spec"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

// errPrompt is wrapped by errors about a tok_input the model cannot run.
var errPrompt = errors.New("llama2: prompt does not fit the model")

// checkPrompt checks one tok_input against a model spec: not empty, every
// id a row of the model's vocabulary, and room in the context for
// maxNew generated tokens.
func checkPrompt(p []int32, spec generate.Spec, maxNew int) error {
	if len(p) == 0 {
		return fmt.Errorf("%w: empty tok_input", errPrompt)
	}
	for j, t := range p {
		if t < 0 || int(t) >= spec.Vocab {
			return fmt.Errorf("%w: id %d at position %d is outside the model's vocabulary of %d (is the data set tokenized for this model?)", errPrompt, t, j, spec.Vocab)
		}
	}
	if spec.MaxPositions > 0 && len(p)+maxNew > spec.MaxPositions {
		return fmt.Errorf("%w: %d prompt ids + %d new tokens exceed the model's context of %d positions", errPrompt, len(p), maxNew, spec.MaxPositions)
	}
	return nil
}

// qsl is the query sample library over the rows of an OpenOrca parquet
// file: sample i is row i's tok_input, read from the file when the loadgen
// loads it (one pass over the column per LoadSamples call) and checked
// against the model. Prompt is safe for concurrent use with itself; the
// loadgen never calls it concurrently with LoadSamples or UnloadSamples.
type qsl struct {
	ds      *openorca.Dataset
	total   int
	spec    generate.Spec
	maxNew  int
	prompts [][]int32
	loaded  atomic.Int64
}

// newQSL returns the QSL of the first count rows of ds (count ≤ 0: all).
// Prompts are checked against spec with maxNew tokens to generate.
func newQSL(ds *openorca.Dataset, count int, spec generate.Spec, maxNew int) (*qsl, error) {
	n := ds.Len()
	if count > 0 {
		n = min(n, count)
	}
	if n == 0 {
		return nil, fmt.Errorf("llama2: %s has no rows", ds.Path())
	}
	return &qsl{ds: ds, total: n, spec: spec, maxNew: maxNew, prompts: make([][]int32, n)}, nil
}

// TotalSampleCount implements loadgen.QSL.
func (q *qsl) TotalSampleCount() int { return q.total }

// PerformanceSampleCount implements loadgen.QSL: every sample (mlperf.conf
// overrides it with 24576 for the official file).
func (q *qsl) PerformanceSampleCount() int { return q.total }

// Loaded is the number of samples in memory.
func (q *qsl) Loaded() int { return int(q.loaded.Load()) }

// LoadSamples implements loadgen.QSL: it reads tok_input of the samples of
// idx not loaded yet and checks each against the model.
func (q *qsl) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	var rows []int
	for _, i := range idx {
		if int(i) >= q.total {
			return fmt.Errorf("llama2: sample %d outside the %d samples", i, q.total)
		}
		if q.prompts[i] == nil && !slices.Contains(rows, int(i)) {
			rows = append(rows, int(i))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	toks, err := q.ds.Tokens(openorca.ColTokInput, rows)
	if err != nil {
		return err
	}
	for k, r := range rows {
		if err := checkPrompt(toks[k], q.spec, q.maxNew); err != nil {
			return fmt.Errorf("%w (row %d of %s)", err, r, q.ds.Path())
		}
	}
	for k, r := range rows {
		q.prompts[r] = toks[k]
	}
	q.loaded.Add(int64(len(rows)))
	return nil
}

// UnloadSamples implements loadgen.QSL.
func (q *qsl) UnloadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	for _, i := range idx {
		if int(i) < q.total && q.prompts[i] != nil {
			q.prompts[i] = nil
			q.loaded.Add(-1)
		}
	}
	return nil
}

// Prompt returns the tok_input ids of a loaded sample (owned by the QSL).
func (q *qsl) Prompt(i loadgen.SampleIndex) ([]int32, error) {
	if int(i) >= q.total || q.prompts[i] == nil {
		return nil, fmt.Errorf("llama2: sample %d is not loaded", i)
	}
	return q.prompts[i], nil
}

// lazyTokenizer loads the tokenizer at most once.
func lazyTokenizer(path string) func() (*tokenizer.Llama, error) {
	return sync.OnceValues(func() (*tokenizer.Llama, error) {
		tok, err := tokenizer.LoadLlama(path)
		if err != nil {
			return nil, fmt.Errorf("llama2: %w (give --tokenizer DIR)", err)
		}
		return tok, nil
	})
}

// dataFile resolves --data: synthetic (generated once into the cache
// folder with tok), a parquet file, or a folder holding openorca.FileName.
func dataFile(data, cacheDir string, tok func() (*tokenizer.Llama, error), stderr io.Writer) (string, error) {
	if data == "synthetic" {
		path := filepath.Join(cacheDir, "openorca-synthetic-small", openorca.FileName)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		t, err := tok()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(stderr, "llama2: synthetic OpenOrca parquet (generated text, %d rows) at %s\n", openorca.SmallSynth.Samples, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		return path, openorca.SynthFile(path, t, openorca.SmallSynth)
	}
	return spec.FileIn(data, openorca.FileName), nil
}
