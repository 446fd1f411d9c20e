package reasoning

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mlperf-go/inference/loadgen"
)

// QSL is a loadgen.QSL over a data set's prompts, held in memory from
// the start (the references' QSLs load nothing either: the files are tens
// of megabytes): LoadSamples and UnloadSamples mark samples, and Prompt
// returns a loaded sample's ids and text. It is safe for concurrent use.
type QSL struct {
	rows   []Row
	text   func(Row) string
	loaded []atomic.Bool
	n      atomic.Int64
}

// NewQSL makes the QSL of s's first count rows (count ≤ 0: all); text
// gives a row's prompt as text, for servers that take no token ids.
func NewQSL(s *Set, count int, text func(Row) string) (*QSL, error) {
	n := s.Len()
	if count > 0 {
		if count > n {
			return nil, fmt.Errorf("reasoning: --count %d, but %s has %d rows", count, s.Path, n)
		}
		n = count
	}
	return &QSL{rows: s.Rows[:n], text: text, loaded: make([]atomic.Bool, n)}, nil
}

// TotalSampleCount implements loadgen.QSL.
func (q *QSL) TotalSampleCount() int { return len(q.rows) }

// PerformanceSampleCount implements loadgen.QSL: every sample (the
// benchmarks' mlperf.conf entries override it).
func (q *QSL) PerformanceSampleCount() int { return len(q.rows) }

// Loaded is the number of samples marked loaded.
func (q *QSL) Loaded() int { return int(q.n.Load()) }

// LoadSamples implements loadgen.QSL.
func (q *QSL) LoadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	for _, i := range idx {
		if int(i) >= len(q.rows) {
			return fmt.Errorf("reasoning: sample %d outside the %d samples", i, len(q.rows))
		}
	}
	for _, i := range idx {
		if !q.loaded[i].Swap(true) {
			q.n.Add(1)
		}
	}
	return nil
}

// UnloadSamples implements loadgen.QSL.
func (q *QSL) UnloadSamples(ctx context.Context, idx []loadgen.SampleIndex) error {
	for _, i := range idx {
		if int(i) < len(q.rows) && q.loaded[i].Swap(false) {
			q.n.Add(-1)
		}
	}
	return nil
}

// Prompt returns a loaded sample's prompt ids (the data set's, sent
// verbatim; not to be modified) and text.
func (q *QSL) Prompt(i loadgen.SampleIndex) ([]int32, string, error) {
	if int(i) >= len(q.rows) || !q.loaded[i].Load() {
		return nil, "", fmt.Errorf("reasoning: sample %d is not loaded", i)
	}
	r := q.rows[i]
	return r.TokInput, q.text(r), nil
}
