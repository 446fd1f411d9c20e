package dlrm

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/loadgen"
)

// defaultRowBudget is the most data rows one dense-graph call gets when
// --row-budget is not given.
const defaultRowBudget = 4096

// Model runs DLRM-DCNv2 on aggregated samples: the embedding stage in Go,
// then the dense graph, over batches that pack the rows of several
// samples up to a row budget. It implements harness.Model and is safe for
// concurrent use.
type Model struct {
	sess   backend.Session
	emb    *embeddings
	ds     *criteo.Dataset
	trace  *criteo.Trace
	budget int
	bufs   sync.Pool // *buffers
}

type buffers struct {
	dense, emb []float32
}

// NewModel returns the model over a session of the dense graph, the
// embedding tables, the data set and its aggregation trace; one dense
// call gets at most rowBudget rows, unless one sample alone has more.
func NewModel(sess backend.Session, emb *embeddings, ds *criteo.Dataset, tr *criteo.Trace, rowBudget int) (*Model, error) {
	if rowBudget < 1 {
		rowBudget = defaultRowBudget
	}
	if tr.Offsets[tr.Len()] > ds.Rows {
		return nil, fmt.Errorf("dlrm: the aggregation trace covers %d rows but the data set has %d", tr.Offsets[tr.Len()], ds.Rows)
	}
	for _, in := range sess.Inputs() {
		if in.Name == inputEmbedding && len(in.Shape) == 3 && in.Shape[2] > 0 && int(in.Shape[2]) != emb.Dim {
			return nil, fmt.Errorf("dlrm: the dense graph takes %d-wide embeddings but the tables are %d wide", in.Shape[2], emb.Dim)
		}
	}
	return &Model{sess: sess, emb: emb, ds: ds, trace: tr, budget: rowBudget}, nil
}

// Predict implements harness.Model: the samples are cut, in order, into
// chunks of at most the row budget; each chunk is one dense-graph call,
// and every sample is answered with its own rows' (probability, label)
// float32 pairs, as the reference's DlrmPostProcess writes them.
func (m *Model) Predict(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response) error {
	// Checked before any row count is read: an index past the trace would
	// otherwise panic in Rows.
	for _, i := range idx {
		if int(i) >= m.trace.Len() {
			return fmt.Errorf("dlrm: sample %d outside the %d aggregated samples", i, m.trace.Len())
		}
	}
	for i := 0; i < len(idx); {
		j, rows := i, 0
		for j < len(idx) {
			s, e := m.trace.Rows(int(idx[j]))
			if j > i && rows+e-s > m.budget {
				break
			}
			rows += e - s
			j++
		}
		if err := m.run(ctx, idx[i:j], out[i:j], rows); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// Rows is the number of data rows of sample i.
func (m *Model) Rows(i loadgen.SampleIndex) int {
	s, e := m.trace.Rows(int(i))
	return e - s
}

func (m *Model) run(ctx context.Context, idx []loadgen.SampleIndex, out []loadgen.Response, rows int) error {
	b, _ := m.bufs.Get().(*buffers)
	if b == nil {
		b = &buffers{}
	}
	defer m.bufs.Put(b)
	dim := m.emb.Dim
	stride := criteo.NumSparse * dim
	b.dense = grow(b.dense, rows*criteo.NumDense)
	b.emb = grow(b.emb, rows*stride)
	if err := m.gather(idx, b.dense, b.emb, stride); err != nil {
		return err
	}
	res, err := m.sess.Run(ctx, []backend.Tensor{
		{Name: inputDense, DType: backend.Float32, Shape: []int64{int64(rows), criteo.NumDense}, Data: b.dense},
		{Name: inputEmbedding, DType: backend.Float32, Shape: []int64{int64(rows), criteo.NumSparse, int64(dim)}, Data: b.emb},
	})
	if err != nil {
		return fmt.Errorf("dlrm: dense graph: %w", err)
	}
	var prob []float32
	for _, t := range res {
		if t.Name == outputProb {
			prob, _ = t.Data.([]float32)
		}
	}
	if len(prob) != rows {
		return fmt.Errorf("dlrm: the dense graph returned %d probabilities for %d rows (want output %q float32 [rows])", len(prob), rows, outputProb)
	}
	r := 0
	for i, si := range idx {
		s, e := m.trace.Rows(int(si))
		data := make([]byte, 0, 8*(e-s))
		for row := s; row < e; row++ {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(prob[r]))
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(m.ds.Label(row)))
			r++
		}
		out[i].Data = data
	}
	return nil
}

// gather fills dense [rows, 13] and emb [rows, 26, Dim] for the samples'
// rows, in order; the pooling is spread over the cores for large chunks.
func (m *Model) gather(idx []loadgen.SampleIndex, dense, emb []float32, stride int) error {
	parts := make([]part, 0, len(idx))
	at := 0
	for _, i := range idx {
		s, e := m.trace.Rows(int(i))
		m.ds.Dense(s, e, dense[at*criteo.NumDense:])
		parts = append(parts, part{s, e, at})
		at += e - s
	}
	pool := func(p part) error {
		for k := range criteo.NumSparse {
			if err := m.emb.Pool(k, m.ds.IDs(k, p.s, p.e), p.e-p.s, m.ds.MultiHot[k], emb[p.at*stride+k*m.emb.Dim:], stride); err != nil {
				return fmt.Errorf("%w (data row %d..%d)", err, p.s, p.e)
			}
		}
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), at/256)
	if workers <= 1 {
		for _, p := range parts {
			if err := pool(p); err != nil {
				return err
			}
		}
		return nil
	}
	// Cut the rows into equal spans across workers.
	var spans [][]part
	per := (at + workers - 1) / workers
	for _, p := range parts {
		for s := p.s; s < p.e; {
			if len(spans) == 0 || spanRows(spans[len(spans)-1]) >= per {
				spans = append(spans, nil)
			}
			last := &spans[len(spans)-1]
			e := min(p.e, s+per-spanRows(*last))
			*last = append(*last, part{s, e, p.at + s - p.s})
			s = e
		}
	}
	errs := make([]error, len(spans))
	var wg sync.WaitGroup
	for w, sp := range spans {
		wg.Go(func() {
			for _, p := range sp {
				if err := pool(p); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// part is data rows [s, e) going to output rows from at.
type part struct{ s, e, at int }

func spanRows(ps []part) int {
	n := 0
	for _, p := range ps {
		n += p.e - p.s
	}
	return n
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}
