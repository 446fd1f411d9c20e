package llama3

import (
	"context"
	"fmt"

	"github.com/mlperf-go/inference/datasets/cnndm"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/llm/generate"
	"github.com/mlperf-go/inference/loadgen"
)

// promptQSL is the query sample library over the records of a Llama 3.1 8B data
// set: sample i is record i's tok_input, checked against the model when
// the loadgen loads it. Prompt is safe for concurrent use with itself.
type promptQSL struct {
	*harness.QSL[[]int32]
	recs []cnndm.Llama3Record
}

// newQSL returns the QSL of the first count records (count ≤ 0: all),
// prompts checked against spec with maxNew tokens to generate; name is the
// data set file, for errors.
func newQSL(recs []cnndm.Llama3Record, count int, spec generate.Spec, maxNew int, name string) (*promptQSL, error) {
	n := len(recs)
	if count > 0 {
		n = min(n, count)
	}
	if n == 0 {
		return nil, fmt.Errorf("llama3: %s has no records", name)
	}
	q := &promptQSL{recs: recs[:n]}
	hq, err := harness.NewQSL(harness.QSLConfig[[]int32]{
		Total: n,
		Load: func(_ context.Context, i int) ([]int32, error) {
			p := recs[i].TokInput
			if err := spec.CheckPrompt(p, maxNew); err != nil {
				return nil, fmt.Errorf("llama3: %w (record %d of %s)", err, i, name)
			}
			return p, nil
		},
		Workers: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("llama3: %w", err)
	}
	q.QSL = hq
	return q, nil
}

// Prompt returns the tok_input ids of a loaded sample (owned by the QSL).
func (q *promptQSL) Prompt(i loadgen.SampleIndex) ([]int32, error) {
	p, ok := q.Sample(i)
	if !ok {
		return nil, fmt.Errorf("llama3: sample %d is not loaded", i)
	}
	return p, nil
}

// Targets returns the "output" highlights of the QSL's records, the ROUGE
// references in sample order.
func (q *promptQSL) Targets() []string {
	out := make([]string, len(q.recs))
	for i, r := range q.recs {
		out[i] = r.Output
	}
	return out
}
