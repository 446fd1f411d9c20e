package dlrm

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort/orttest"

	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/datasets/criteo"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/onnx"
)

// fixture is a tiny model folder whose dense weights the test knows, and a
// small data set.
type fixture struct {
	a     arch
	w     map[string][]float32
	emb   *embeddings
	ds    *criteo.Dataset
	model *Model
	trace *criteo.Trace
}

func newFixture(t *testing.T, tr func(rows int) *criteo.Trace, budget int) *fixture {
	t.Helper()
	orttest.Need(t)
	dir := t.TempDir()
	f := &fixture{a: archTiny, w: map[string][]float32{}}
	rng := onnx.SplitMix64{State: 42}
	g, err := denseGraph(f.a, 0, func(name string, dims []int64) (*onnx.Tensor, error) {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.Float64()-0.5) * 0.6
		}
		f.w[name] = v
		return onnx.NewTensor(name, onnx.Float, dims, v), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "model.onnx")
	if err := g.WriteFile(path, onnx.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := writeSyntheticTables(dir, f.a, 5); err != nil {
		t.Fatal(err)
	}
	if f.emb, err = openEmbeddings(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.emb.Close() })
	data := t.TempDir()
	if err := criteo.Synth(data, criteo.SynthConfig{Rows: 600, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	if f.ds, err = criteo.Open(data, criteo.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.ds.Close() })
	f.trace = tr(f.ds.Rows)
	sess, err := ort.Open(path, ort.Options{Provider: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if f.model, err = NewModel(sess, f.emb, f.ds, f.trace, budget); err != nil {
		t.Fatal(err)
	}
	return f
}

// forward is DLRM-DCNv2 on one data row written out in Go from the
// architecture (TorchRec DLRM_DCN): the reference the graph must match.
func (f *fixture) forward(row int) float64 {
	a, w := f.a, f.w
	lin := func(prefix string, x []float64, out int, relu bool) []float64 {
		W, b := w[prefix+".weight"], w[prefix+".bias"]
		y := make([]float64, out)
		for o := range out {
			s := float64(b[o])
			for i, xi := range x {
				s += xi * float64(W[i*out+o])
			}
			if relu && s < 0 {
				s = 0
			}
			y[o] = s
		}
		return y
	}
	d := make([]float32, criteo.NumDense)
	f.ds.Dense(row, row+1, d)
	x := make([]float64, len(d))
	for i, v := range d {
		x[i] = float64(v)
	}
	for i, out := range a.Bottom {
		x = lin(fmt.Sprintf("bottom.%d", i), x, out, true)
	}
	x0 := append([]float64{}, x...)
	for k := range criteo.NumSparse {
		sum := make([]float64, a.Dim)
		ids := f.ds.IDs(k, row, row+1)
		for j := 0; j < len(ids); j += 4 {
			id := int(int32(binary.LittleEndian.Uint32(ids[j:]))) % a.Rows(k)
			for c := range a.Dim {
				sum[c] += float64(f.emb.tables[k][id*a.Dim+c])
			}
		}
		x0 = append(x0, sum...)
	}
	n, r := a.Interaction(), a.LowRank
	xl := append([]float64{}, x0...)
	for l := range a.Layers {
		V, Wk, b := w[fmt.Sprintf("cross.%d.V", l)], w[fmt.Sprintf("cross.%d.W", l)], w[fmt.Sprintf("cross.%d.bias", l)]
		u := make([]float64, r)
		for j := range r {
			for i := range n {
				u[j] += xl[i] * float64(V[i*r+j])
			}
		}
		next := make([]float64, n)
		for i := range n {
			s := float64(b[i])
			for j := range r {
				s += u[j] * float64(Wk[j*n+i])
			}
			next[i] = x0[i]*s + xl[i]
		}
		xl = next
	}
	y := xl
	for i, out := range a.Top {
		y = lin(fmt.Sprintf("top.%d", i), y, out, i < len(a.Top)-1)
	}
	return 1 / (1 + math.Exp(-y[0]))
}

func pairs(t *testing.T, data []byte) (p, l []float32) {
	t.Helper()
	if len(data)%8 != 0 {
		t.Fatalf("response of %d bytes is not float32 pairs", len(data))
	}
	for i := 0; i < len(data); i += 8 {
		p = append(p, math.Float32frombits(binary.LittleEndian.Uint32(data[i:])))
		l = append(l, math.Float32frombits(binary.LittleEndian.Uint32(data[i+4:])))
	}
	return p, l
}

// TestModelMatchesArchitecture checks the embedding stage and the dense
// graph together against forward, row by row, over samples packed several
// to a call.
func TestModelMatchesArchitecture(t *testing.T) {
	f := newFixture(t, func(rows int) *criteo.Trace { tr, _ := criteo.FixedTrace(rows, 7); return tr }, 30)
	n := f.trace.Len()
	idx := make([]loadgen.SampleIndex, n)
	for i := range idx {
		idx[i] = loadgen.SampleIndex(i)
	}
	out := make([]loadgen.Response, n)
	if err := f.model.Predict(context.Background(), idx, out); err != nil {
		t.Fatal(err)
	}
	for i, r := range out {
		p, l := pairs(t, r.Data)
		s, e := f.trace.Rows(i)
		if len(p) != e-s {
			t.Fatalf("sample %d: %d pairs for %d rows", i, len(p), e-s)
		}
		for j := range p {
			if l[j] != f.ds.Label(s+j) {
				t.Fatalf("sample %d row %d: label %v, data %v", i, j, l[j], f.ds.Label(s+j))
			}
			if want := f.forward(s + j); math.Abs(float64(p[j])-want) > 1e-5 {
				t.Fatalf("sample %d row %d: probability %v, architecture %v", i, j, p[j], want)
			}
		}
	}
}

type collect struct {
	mu  sync.Mutex
	got map[loadgen.ResponseID][]byte
	err error
	wg  *sync.WaitGroup
}

func (c *collect) Complete(rs ...loadgen.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rs {
		if r.Err != nil && c.err == nil {
			c.err = r.Err
		}
		c.got[r.ID] = append([]byte(nil), r.Data...)
		c.wg.Done()
	}
}

// TestLargeQueryIsSplitAndEachChunkAnswersForItsSamples issues one query
// far larger than the batch (samples per call) and the row budget
// through the Offline SUT, with samples out of order, and checks that
// every sample gets exactly its own rows: the reference's QueueRunner
// answers every chunk after the first with the first chunk's results
// (mlcommons/inference recommendation/dlrm_v2/pytorch/python/main.py
// enqueue fetches idx, not idx[i:ie]).
func TestLargeQueryIsSplitAndEachChunkAnswersForItsSamples(t *testing.T) {
	f := newFixture(t, func(rows int) *criteo.Trace { tr, _ := criteo.QuantileTrace(rows, []int{3, 5, 11, 2}, 1); return tr }, 16)
	n := f.trace.Len()
	if n < 40 {
		t.Fatalf("only %d samples", n)
	}
	// Reference answers: each sample alone.
	alone := make([][]float32, n)
	for i := range n {
		out := make([]loadgen.Response, 1)
		if err := f.model.Predict(context.Background(), []loadgen.SampleIndex{loadgen.SampleIndex(i)}, out); err != nil {
			t.Fatal(err)
		}
		alone[i], _ = pairs(t, out[0].Data)
	}
	sut, closeSUT, err := harness.ForScenario("Offline", f.model, harness.PoolConfig{Batch: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer closeSUT()
	var samples []loadgen.Sample
	for i := range n {
		j := (i * 7) % n // a permutation (n is not a multiple of 7)
		samples = append(samples, loadgen.Sample{ID: loadgen.ResponseID(1000 + i), Index: loadgen.SampleIndex(j)})
	}
	var wg sync.WaitGroup
	wg.Add(len(samples))
	c := &collect{got: map[loadgen.ResponseID][]byte{}, wg: &wg}
	sut.IssueQuery(context.Background(), samples, c)
	wg.Wait()
	if c.err != nil {
		t.Fatal(c.err)
	}
	for _, s := range samples {
		p, l := pairs(t, c.got[s.ID])
		st, e := f.trace.Rows(int(s.Index))
		if len(p) != e-st {
			t.Fatalf("sample %d: %d pairs for its %d rows", s.Index, len(p), e-st)
		}
		for j := range p {
			if l[j] != f.ds.Label(st+j) || math.Abs(float64(p[j]-alone[s.Index][j])) > 1e-6 {
				t.Fatalf("sample %d row %d: (%v, %v), alone (%v, %v)", s.Index, j, p[j], l[j], alone[s.Index][j], f.ds.Label(st+j))
			}
		}
	}
}

// TestPredictRefusesASampleIndexEqualToTheCount: the last sample is
// answered; the index equal to the trace's sample count is an error naming
// both, and nothing is answered.
func TestPredictRefusesASampleIndexEqualToTheCount(t *testing.T) {
	f := newFixture(t, func(rows int) *criteo.Trace { tr, _ := criteo.FixedTrace(rows, 7); return tr }, 30)
	n := f.trace.Len()
	out := make([]loadgen.Response, 1)
	if err := f.model.Predict(context.Background(), []loadgen.SampleIndex{loadgen.SampleIndex(n - 1)}, out); err != nil || len(out[0].Data) == 0 {
		t.Fatalf("last sample %d: %v, %d bytes", n-1, err, len(out[0].Data))
	}
	out = make([]loadgen.Response, 2)
	err := f.model.Predict(context.Background(), []loadgen.SampleIndex{0, loadgen.SampleIndex(n)}, out)
	if want := fmt.Sprintf("dlrm: sample %d outside the %d aggregated samples", n, n); err == nil || err.Error() != want {
		t.Fatalf("sample %d of %d: %v, want %q", n, n, err, want)
	}
	if out[0].Data != nil || out[1].Data != nil {
		t.Fatalf("a refused batch answered %x, %x", out[0].Data, out[1].Data)
	}
	// The QSL refuses the same index.
	q := &qsl{ds: f.ds, trace: f.trace}
	if err := q.LoadSamples(context.Background(), []loadgen.SampleIndex{loadgen.SampleIndex(n)}); err == nil || err.Error() != fmt.Sprintf("dlrm: load sample %d of %d", n, n) {
		t.Fatalf("QSL load of sample %d: %v", n, err)
	}
}

// rowLog is a Session that records the row count of every dense call.
type rowLog struct {
	backend.Session
	mu   sync.Mutex
	rows []int64
}

func (r *rowLog) Run(ctx context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	r.mu.Lock()
	r.rows = append(r.rows, in[0].Shape[0])
	r.mu.Unlock()
	return r.Session.Run(ctx, in)
}

// TestRowBudgetIsFilledExactly: samples of 7 rows under a budget of 14
// rows go two to a dense call (14 fits), and a third starts the next call.
func TestRowBudgetIsFilledExactly(t *testing.T) {
	f := newFixture(t, func(rows int) *criteo.Trace { tr, _ := criteo.FixedTrace(rows, 7); return tr }, 14)
	log := &rowLog{Session: f.model.sess}
	f.model.sess = log
	out := make([]loadgen.Response, 5)
	if err := f.model.Predict(context.Background(), []loadgen.SampleIndex{0, 1, 2, 3, 4}, out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(log.rows, []int64{14, 14, 7}) {
		t.Errorf("dense calls of %v rows, want [14 14 7]", log.rows)
	}
}
