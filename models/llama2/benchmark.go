package llama2

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/accuracy/rouge"
	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/datasets/openorca"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/tokenizer"
	"github.com/mlperf-go/inference/loadgen"
)

// ErrPrompt is wrapped by errors about a tok_input the model cannot run.
var ErrPrompt = errors.New("llama2: prompt does not fit the model")

// SpecFromSession returns the decode-loop spec of a model file's session:
// the layer count from its past_key_values.N.key inputs, the kv heads and
// head dimension from their shape, the vocabulary from the logits' last
// dimension; a dimension the export leaves symbolic takes the 70B value.
// MaxPositions is 4096 and PadID the EOS, as Llama 2. The full contract is
// checked by New.
func SpecFromSession(s backend.Session) generate.Spec {
	spec, _ := generate.SpecFrom(s, Configs[Size70B].Spec())
	return spec
}

// CheckPrompt checks one tok_input against a model spec: not empty, every
// id a row of the model's vocabulary, and room in the context for
// maxNew generated tokens.
func CheckPrompt(p []int32, spec generate.Spec, maxNew int) error {
	if len(p) == 0 {
		return fmt.Errorf("%w: empty tok_input", ErrPrompt)
	}
	for j, t := range p {
		if t < 0 || int(t) >= spec.Vocab {
			return fmt.Errorf("%w: id %d at position %d is outside the model's vocabulary of %d (is the data set tokenized for this model?)", ErrPrompt, t, j, spec.Vocab)
		}
	}
	if spec.MaxPositions > 0 && len(p)+maxNew > spec.MaxPositions {
		return fmt.Errorf("%w: %d prompt ids + %d new tokens exceed the model's context of %d positions", ErrPrompt, len(p), maxNew, spec.MaxPositions)
	}
	return nil
}

// QSL is the query sample library over the rows of an OpenOrca parquet
// file: sample i is row i's tok_input, read from the file when the loadgen
// loads it (one pass over the column per LoadSamples call) and checked
// against the model. Prompt is safe for concurrent use with itself; the
// loadgen never calls it concurrently with LoadSamples or UnloadSamples.
type QSL struct {
	ds      *openorca.Dataset
	total   int
	spec    generate.Spec
	maxNew  int
	prompts [][]int32
	loaded  atomic.Int64
}

// NewQSL returns the QSL of the first count rows of ds (count ≤ 0: all).
// Prompts are checked against spec with maxNew tokens to generate.
func NewQSL(ds *openorca.Dataset, count int, spec generate.Spec, maxNew int) (*QSL, error) {
	n := ds.Len()
	if count > 0 {
		n = min(n, count)
	}
	if n == 0 {
		return nil, fmt.Errorf("llama2: %s has no rows", ds.Path())
	}
	return &QSL{ds: ds, total: n, spec: spec, maxNew: maxNew, prompts: make([][]int32, n)}, nil
}

// TotalSampleCount implements loadgen.QSL.
func (q *QSL) TotalSampleCount() int { return q.total }

// PerformanceSampleCount implements loadgen.QSL: every sample (mlperf.conf
// overrides it with 24576 for the official file).
func (q *QSL) PerformanceSampleCount() int { return q.total }

// Loaded is the number of samples in memory.
func (q *QSL) Loaded() int { return int(q.loaded.Load()) }

// LoadSamples implements loadgen.QSL: it reads tok_input of the samples of
// idx not loaded yet and checks each against the model.
func (q *QSL) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
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
		if err := CheckPrompt(toks[k], q.spec, q.maxNew); err != nil {
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
func (q *QSL) UnloadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	for _, i := range idx {
		if int(i) < q.total && q.prompts[i] != nil {
			q.prompts[i] = nil
			q.loaded.Add(-1)
		}
	}
	return nil
}

// Prompt returns the tok_input ids of a loaded sample (owned by the QSL).
func (q *QSL) Prompt(i loadgen.SampleIndex) ([]int32, error) {
	if int(i) >= q.total || q.prompts[i] == nil {
		return nil, fmt.Errorf("llama2: sample %d is not loaded", i)
	}
	return q.prompts[i], nil
}

// Benchmark is a loadgen SUT for one scenario: the continuous-batching SUT
// of NewSUT, with FirstToken withheld in Offline (LoadGen needs it only in
// the other scenarios) and a count of completed samples and tokens.
// IssueQuery is safe for concurrent use.
type Benchmark struct {
	sut     closingSUT
	offline bool
	samples atomic.Int64
	tokens  atomic.Int64
}

// BenchmarkConfig configures NewBenchmark.
type BenchmarkConfig struct {
	SUTConfig
	// Offline withholds FirstToken (the Offline scenario).
	Offline bool
}

// NewBenchmark starts the SUT on m; Close it after the run.
func NewBenchmark(ctx context.Context, m *generate.Model, cfg BenchmarkConfig) (*Benchmark, error) {
	s, err := NewSUT(ctx, m, cfg.SUTConfig)
	if err != nil {
		return nil, err
	}
	return &Benchmark{sut: s, offline: cfg.Offline}, nil
}

// closingSUT is a SUT that is closed after the run: the local decoder's or
// a remote engine's.
type closingSUT interface {
	loadgen.SUT
	Close() error
}

// counting passes responses on and counts them; it is a TokenCompleter
// only when tc is set.
type counting struct {
	c loadgen.Completer
	b *Benchmark
}

func (c counting) Complete(rs ...loadgen.Response) {
	n := 0
	for _, r := range rs {
		n += r.Tokens
	}
	c.b.tokens.Add(int64(n))
	c.b.samples.Add(int64(len(rs)))
	c.c.Complete(rs...)
}

type countingTokens struct {
	counting
	tc loadgen.TokenCompleter
}

func (c countingTokens) FirstToken(id loadgen.ResponseID, data []byte) { c.tc.FirstToken(id, data) }

// IssueQuery implements loadgen.SUT.
func (b *Benchmark) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	cc := counting{c: c, b: b}
	if tc, ok := c.(loadgen.TokenCompleter); ok && !b.offline {
		b.sut.IssueQuery(ctx, samples, countingTokens{cc, tc})
		return
	}
	b.sut.IssueQuery(ctx, samples, cc)
}

// Done returns the samples and generated tokens completed so far.
func (b *Benchmark) Done() (samples, tokens int64) { return b.samples.Load(), b.tokens.Load() }

// Close stops the SUT once every issued sample is done.
func (b *Benchmark) Close() error { return b.sut.Close() }

// Score reads an accuracy log of token ids (dtype int32, the default, or
// int64), keeps the first entry of each qsl_idx, decodes the ids with tok
// skipping special tokens, and scores them against the output column of ds
// as evaluate-accuracy.py does (RougeEvaluate; gen_tok_len counts every
// id, EOS included).
func Score(logPath string, ds *openorca.Dataset, tok *tokenizer.Llama, dtype accuracy.DType) (rouge.Result, error) {
	if dtype == "" {
		dtype = accuracy.Int32
	}
	if dtype != accuracy.Int32 && dtype != accuracy.Int64 {
		return rouge.Result{}, fmt.Errorf("llama2: --dtype %s: token ids are int32 or int64", dtype)
	}
	targets, err := ds.Strings(openorca.ColOutput)
	if err != nil {
		return rouge.Result{}, err
	}
	var preds, refs []string
	var counts []int
	_, err = accuracy.ReadUnique(logPath, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(targets)) {
			return fmt.Errorf("llama2: accuracy log %s: qsl_idx %d, but %s has %d rows", logPath, e.QSLIdx, ds.Path(), len(targets))
		}
		vals, err := accuracy.Decode(e.Data, dtype)
		if err != nil {
			return fmt.Errorf("llama2: accuracy log %s: qsl_idx %d: %w", logPath, e.QSLIdx, err)
		}
		ids := make([]int32, len(vals))
		for i, v := range vals {
			ids[i] = int32(v)
		}
		preds = append(preds, tok.Decode(ids, tokenizer.DecodeOptions{SkipSpecial: true}))
		refs = append(refs, targets[e.QSLIdx])
		counts = append(counts, len(ids))
		return nil
	})
	if err != nil {
		return rouge.Result{}, err
	}
	if len(preds) == 0 {
		return rouge.Result{}, fmt.Errorf("llama2: accuracy log %s has no entries", logPath)
	}
	r, err := rouge.Evaluate(preds, refs, counts)
	if err != nil {
		return r, fmt.Errorf("llama2: %w", err)
	}
	return r, nil
}
