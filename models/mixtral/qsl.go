package mixtral

import (
	"context"
	"fmt"
	"sync"

	"github.com/mlperf-go/inference/datasets/mixtral"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/llm/llmbench"
	"github.com/mlperf-go/inference/loadgen"
)

// promptQSL is the query sample library over the rows of the data set:
// sample i is row i's tok_input, checked against the model when the
// loadgen loads it. Prompt is safe for concurrent use with itself.
type promptQSL struct {
	*harness.QSL[[]int32]
	ds *mixtral.Dataset
}

// newQSL returns the QSL of the first count rows (count ≤ 0: all),
// prompts checked against spec with maxNew tokens to generate.
//
// SUT.py re-tokenizes the `input` text with the Hugging Face tokenizer;
// tok_input is that tokenization (standalone_infer/hf_eval_all.py made it
// with the same tokenizer files), so the ids are the same.
func newQSL(ds *mixtral.Dataset, count int, spec generate.Spec, maxNew int) (*promptQSL, error) {
	n := ds.Len()
	if count > 0 {
		n = min(n, count)
	}
	q := &promptQSL{ds: ds}
	hq, err := harness.NewQSL(harness.QSLConfig[[]int32]{
		Total: n,
		Load: func(_ context.Context, i int) ([]int32, error) {
			p := ds.Samples[i].TokInput
			if err := spec.CheckPrompt(p, maxNew); err != nil {
				return nil, fmt.Errorf("mixtral: %w (row %d of %s)", err, i, ds.Path)
			}
			return p, nil
		},
		Workers: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("mixtral: %w", err)
	}
	q.QSL = hq
	return q, nil
}

// Prompt returns the tok_input ids of a loaded sample (owned by the QSL).
func (q *promptQSL) Prompt(i loadgen.SampleIndex) ([]int32, error) {
	p, ok := q.Sample(i)
	if !ok {
		return nil, fmt.Errorf("mixtral: sample %d is not loaded", i)
	}
	return p, nil
}

// trimSUT applies the reference SUT's post-processing to every response
// of the SUT it wraps (mixtral.TrimOutput: trailing </s> and <unk>
// dropped, an MBXP answer cut after "\n```\n"; dataset.py postProcess):
// the response holds the trimmed ids and reports their count as its
// tokens. The first token goes to FirstToken unchanged. IssueQuery is
// safe for concurrent use.
type trimSUT struct {
	inner   llmbench.ClosingSUT
	dataset func(loadgen.SampleIndex) string

	mu      sync.Mutex
	pending map[loadgen.ResponseID]string
}

func newTrimSUT(inner llmbench.ClosingSUT, ds *mixtral.Dataset) *trimSUT {
	return &trimSUT{inner: inner, pending: map[loadgen.ResponseID]string{},
		dataset: func(i loadgen.SampleIndex) string { return ds.Samples[i].Dataset }}
}

// IssueQuery implements loadgen.SUT.
func (s *trimSUT) IssueQuery(ctx context.Context, samples []loadgen.Sample, c loadgen.Completer) {
	s.mu.Lock()
	for _, smp := range samples {
		s.pending[smp.ID] = s.dataset(smp.Index)
	}
	s.mu.Unlock()
	tc := trimCompleter{c: c, s: s}
	if t, ok := c.(loadgen.TokenCompleter); ok {
		s.inner.IssueQuery(ctx, samples, trimTokenCompleter{tc, t})
		return
	}
	s.inner.IssueQuery(ctx, samples, tc)
}

// Close implements llmbench.ClosingSUT.
func (s *trimSUT) Close() error { return s.inner.Close() }

type trimCompleter struct {
	c loadgen.Completer
	s *trimSUT
}

func (t trimCompleter) Complete(rs ...loadgen.Response) {
	sets := make([]string, len(rs))
	t.s.mu.Lock()
	for i, r := range rs {
		sets[i] = t.s.pending[r.ID]
		delete(t.s.pending, r.ID)
	}
	t.s.mu.Unlock()
	for i := range rs {
		r := &rs[i]
		if r.Err != nil {
			continue
		}
		ids, err := generate.DecodeInt32(r.Data)
		if err != nil {
			r.Err = fmt.Errorf("mixtral: %w", err)
			continue
		}
		kept := mixtral.TrimOutput(sets[i], ids)
		r.Data, r.Tokens = generate.EncodeInt32(nil, kept), len(kept)
	}
	t.c.Complete(rs...)
}

type trimTokenCompleter struct {
	trimCompleter
	tc loadgen.TokenCompleter
}

func (t trimTokenCompleter) FirstToken(id loadgen.ResponseID, data []byte) { t.tc.FirstToken(id, data) }
