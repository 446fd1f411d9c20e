//go:build cgo

package bert

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
	"github.com/mlperf-go/inference/loadgen/loadgentest"
	"github.com/mlperf-go/inference/onnx"
)

// tinyModel builds the tiny synthetic model (8 MB, a fraction of a second).
func tinyModel(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.onnx")
	if err := buildFile(path, sizeTiny, archSeed); err != nil {
		t.Fatal(err)
	}
	return path
}

func openTiny(t testing.TB) *ort.Session {
	t.Helper()
	orttest.Need(t)
	s, err := ort.Open(tinyModel(t), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// randomInputs returns n samples with lens[i] real tokens each: [CLS],
// query ids, [SEP], context ids, [SEP]; segment 1 from the context on.
func randomInputs(n int, lens []int, seed uint64) (ids, mask, seg []int64) {
	rng := onnx.SplitMix64{State: seed}
	ids, mask, seg = make([]int64, n*MaxSeqLength), make([]int64, n*MaxSeqLength), make([]int64, n*MaxSeqLength)
	for k := range n {
		row := k * MaxSeqLength
		l := lens[k%len(lens)]
		q := 1 + l/5
		for p := range l {
			ids[row+p] = 999 + int64(rng.Next()%uint64(VocabSize-999))
			mask[row+p] = 1
			if p > q {
				seg[row+p] = 1
			}
		}
		ids[row], ids[row+q], ids[row+l-1] = 101, 102, 102
	}
	return ids, mask, seg
}

func TestArchTinyRuns(t *testing.T) {
	s := openTiny(t)
	m, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Contract(); c.IDs != inputIDs || c.Mask != inputMask || c.Segments != inputSegmentIDs || c.FixedBatch != 0 {
		t.Fatalf("contract %+v", c)
	}
	in, out := officialInfos()
	if err := backend.Validate(s, in, out); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 3
	ids, mask, seg := randomInputs(n, []int{384, 200, 17}, 5)
	start, end, err := m.Logits(ctx, ids, mask, seg, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(start) != n*MaxSeqLength || len(end) != n*MaxSeqLength {
		t.Fatalf("%d, %d logits", len(start), len(end))
	}
	// Logits are finite, vary, and are neither constant nor saturated.
	for k := range n {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range start[k*MaxSeqLength : (k+1)*MaxSeqLength] {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %d: logit %v", k, v)
			}
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
		t.Logf("sample %d: start logits in [%.3f, %.3f]", k, lo, hi)
		if hi-lo < 0.1 || hi-lo > 100 {
			t.Errorf("sample %d: start logits span [%v, %v]: synthetic activations out of scale", k, lo, hi)
		}
	}
	// Determinism, and batch independence: each sample alone gives the
	// same logits as in the batch (to rounding).
	start2, end2, err := m.Logits(ctx, ids, mask, seg, n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range start {
		if start[i] != start2[i] || end[i] != end2[i] {
			t.Fatalf("position %d: two runs differ", i)
		}
	}
	for k := range n {
		r := k * MaxSeqLength
		s1, e1, err := m.Logits(ctx, ids[r:r+MaxSeqLength], mask[r:r+MaxSeqLength], seg[r:r+MaxSeqLength], 1)
		if err != nil {
			t.Fatal(err)
		}
		for p := range MaxSeqLength {
			if d := math.Abs(float64(s1[p]-start[r+p])) + math.Abs(float64(e1[p]-end[r+p])); d > 1e-4 {
				t.Fatalf("sample %d position %d: alone %v %v, in batch %v %v", k, p, s1[p], e1[p], start[r+p], end[r+p])
			}
		}
	}
	// Padding is masked out: other ids in the padded positions change no
	// logit at a real position.
	r := 2 * MaxSeqLength
	ids3 := append([]int64(nil), ids[r:r+MaxSeqLength]...)
	for p := 17; p < MaxSeqLength; p++ {
		ids3[p] = 2000 + int64(p)
	}
	s3, _, err := m.Logits(ctx, ids3, mask[r:r+MaxSeqLength], seg[r:r+MaxSeqLength], 1)
	if err != nil {
		t.Fatal(err)
	}
	for p := range 17 {
		if d := math.Abs(float64(s3[p] - start[r+p])); d > 1e-4 {
			t.Fatalf("position %d: logit %v with other padding ids, %v before", p, s3[p], start[r+p])
		}
	}
}

// TestArchTinyMatchesGo checks ONNX Runtime's output of the tiny model
// against a plain Go float64 implementation of BERT (embeddings, encoder
// layers, QA head) computed from the same seeded weights.
func TestArchTinyMatchesGo(t *testing.T) {
	s := openTiny(t)
	g, err := arch(sizeTiny, archSeed)
	if err != nil {
		t.Fatal(err)
	}
	w := map[string][]float64{}
	for _, init := range g.Initializers() {
		if strings.HasPrefix(init.Name, "bert.") || strings.HasPrefix(init.Name, "qa_outputs.") {
			if w[init.Name], err = init.Values(); err != nil {
				t.Fatal(err)
			}
		}
	}
	lens := []int{120, 384}
	ids, mask, seg := randomInputs(2, lens, 9)
	m, _ := New(s, nil)
	start, end, err := m.Logits(context.Background(), ids, mask, seg, 2)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		r := k * MaxSeqLength
		ws, we := goBERT(TinyArch, w, ids[r:r+MaxSeqLength], mask[r:r+MaxSeqLength], seg[r:r+MaxSeqLength])
		worst := 0.0
		for p := range MaxSeqLength {
			worst = max(worst, math.Abs(ws[p]-float64(start[r+p])), math.Abs(we[p]-float64(end[r+p])))
		}
		t.Logf("sample %d (%d tokens): largest difference from Go %.2e", k, lens[k], worst)
		if worst > 1e-3 {
			t.Errorf("sample %d: ONNX Runtime and Go differ by %v", k, worst)
		}
	}
}

// goBERT is the reference forward pass of one sample.
func goBERT(c ArchConfig, w map[string][]float64, ids, mask, seg []int64) (start, end []float64) {
	S, H := int(c.SeqLen), int(c.Hidden)
	heads, dh, F := int(c.Heads), int(c.Hidden/c.Heads), int(c.Intermediate)
	x := make([]float64, S*H)
	word, pos, typ := w["bert.embeddings.word_embeddings.weight"], w["bert.embeddings.position_embeddings.weight"], w["bert.embeddings.token_type_embeddings.weight"]
	for s := range S {
		for j := range H {
			x[s*H+j] = word[int(ids[s])*H+j] + typ[int(seg[s])*H+j] + pos[s*H+j]
		}
	}
	ln := func(prefix string, x []float64) {
		gam, bet := w[prefix+".weight"], w[prefix+".bias"]
		for s := range S {
			row := x[s*H : (s+1)*H]
			mean, v := 0.0, 0.0
			for _, a := range row {
				mean += a
			}
			mean /= float64(H)
			for _, a := range row {
				v += (a - mean) * (a - mean)
			}
			v /= float64(H)
			for j := range row {
				row[j] = (row[j]-mean)/math.Sqrt(v+float64(c.Eps))*gam[j] + bet[j]
			}
		}
	}
	dense := func(prefix string, x []float64, in, out int) []float64 {
		W, b := w[prefix+".weight"], w[prefix+".bias"]
		y := make([]float64, S*out)
		for s := range S {
			for o := range out {
				acc := b[o]
				for i := range in {
					acc += x[s*in+i] * W[i*out+o]
				}
				y[s*out+o] = acc
			}
		}
		return y
	}
	ln("bert.embeddings.LayerNorm", x)
	for l := range int(c.Layers) {
		p := fmt.Sprintf("bert.encoder.layer.%d", l)
		q := dense(p+".attention.self.query", x, H, H)
		k := dense(p+".attention.self.key", x, H, H)
		v := dense(p+".attention.self.value", x, H, H)
		ctx := make([]float64, S*H)
		sc := make([]float64, S)
		for h := range heads {
			for i := range S {
				mx := math.Inf(-1)
				for j := range S {
					d := 0.0
					for e := range dh {
						d += q[i*H+h*dh+e] * k[j*H+h*dh+e]
					}
					sc[j] = d/math.Sqrt(float64(dh)) + (1-float64(mask[j]))*-10000
					mx = max(mx, sc[j])
				}
				sum := 0.0
				for j := range S {
					sc[j] = math.Exp(sc[j] - mx)
					sum += sc[j]
				}
				for j := range S {
					for e := range dh {
						ctx[i*H+h*dh+e] += sc[j] / sum * v[j*H+h*dh+e]
					}
				}
			}
		}
		a := dense(p+".attention.output.dense", ctx, H, H)
		for i := range a {
			a[i] += x[i]
		}
		ln(p+".attention.output.LayerNorm", a)
		x = a
		f := dense(p+".intermediate.dense", x, H, F)
		for i, z := range f {
			f[i] = 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
		}
		o := dense(p+".output.dense", f, F, H)
		for i := range o {
			o[i] += x[i]
		}
		ln(p+".output.LayerNorm", o)
		x = o
	}
	lg := dense("qa_outputs", x, H, 2)
	start, end = make([]float64, S), make([]float64, S)
	for s := range S {
		start[s], end[s] = lg[2*s], lg[2*s+1]
	}
	return start, end
}

// TestContractModels opens models that break the contract in ONNX Runtime
// and checks that New and CheckVocab reject them with clear errors.
func TestContractModels(t *testing.T) {
	orttest.Need(t)
	dir := t.TempDir()
	v := testTokenizer(t).Vocab()
	base := TinyArch
	base.Layers, base.Hidden, base.Heads, base.Intermediate = 1, 16, 2, 32
	int8Arch := base
	int8Arch.InputNames = [3]string{inputIDs, int8InputMask, int8InputSegmentIDs}
	seq256 := base
	seq256.SeqLen = 256
	vocab30000 := base
	vocab30000.Vocab = 30000
	for _, tc := range []struct {
		name string
		c    ArchConfig
		err  string // "" when accepted
	}{
		{"fp32 names", base, ""},
		{"int8 names", int8Arch, ""},
		{"sequence length 256", seq256, "sequence length 256"},
		{"vocab 30000", vocab30000, "the model embeds 30000 token ids but vocab.txt has 30522"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".onnx")
			if err := BuildFileOf(path, tc.c, 3); err != nil {
				t.Fatal(err)
			}
			s, err := ort.Open(path, ort.Options{IntraOpThreads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = New(s, nil)
			if err == nil {
				rows, rerr := ModelVocabSize(path)
				if rerr != nil {
					t.Fatal(rerr)
				}
				err = checkVocab(rows, v)
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, errContract) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want ErrContract containing %q", err, tc.err)
			}
		})
	}
}

// TestEndToEndSynth runs the tiny model on every feature of the small
// synthetic SQuAD file through the QSL and an Offline pool SUT, turns the
// responses into answers and scores them: every question gets an answer
// taken from its context, and the score is computed (not meaningful on
// synthetic weights).
func TestEndToEndSynth(t *testing.T) {
	s := openTiny(t)
	ds, err := squad.Load(synthSmallPath)
	if err != nil {
		t.Fatal(err)
	}
	sq, err := newSQuAD(ds, testTokenizer(t), defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	qsl, err := newQSL(sq, DataConfig{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(s, qsl.Sample)
	if err != nil {
		t.Fatal(err)
	}
	n := qsl.TotalSampleCount()
	if n != len(sq.Features) || n <= ds.NumQuestions() {
		t.Fatalf("%d samples for %d features of %d questions: the fixture should need several spans per question", n, len(sq.Features), ds.NumQuestions())
	}
	idx := make([]loadgen.SampleIndex, n)
	for i := range idx {
		idx[i] = loadgen.SampleIndex(i)
	}
	ctx := context.Background()
	if err := qsl.LoadSamples(ctx, idx); err != nil {
		t.Fatal(err)
	}
	pool := harness.NewPool(m, harness.PoolConfig{Batch: 4, Workers: 2})
	defer pool.Close()
	c := loadgentest.NewRecorder()
	samples := make([]loadgen.Sample, n)
	for i := range samples {
		samples[i] = loadgen.Sample{ID: loadgen.ResponseID(i + 1), Index: idx[i]}
	}
	pool.IssueQuery(ctx, samples, c)
	results := map[int]Logits{}
	for rid, r := range c.Wait(n) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		id, d := int(rid), r.Data
		if len(d) != ResponseBytes {
			t.Fatalf("response %d: %d bytes", id, len(d))
		}
		l, err := DecodeResponse(d)
		if err != nil {
			t.Fatal(err)
		}
		results[id-1] = l
	}
	// The batched responses equal batch-1 runs (to rounding).
	for _, i := range []int{0, n - 1} {
		in, _ := qsl.Sample(loadgen.SampleIndex(i))
		st, _, err := m.Logits(ctx, in.IDs, in.Mask, in.Segments, 1)
		if err != nil {
			t.Fatal(err)
		}
		for p := range MaxSeqLength {
			if math.Abs(float64(st[p])-results[i].Start[p]) > 1e-4 {
				t.Fatalf("sample %d position %d: %v alone, %v batched", i, p, st[p], results[i].Start[p])
			}
		}
	}
	preds, err := sq.Answers(results)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != ds.NumQuestions() {
		t.Fatalf("%d predictions for %d questions", len(preds), ds.NumQuestions())
	}
	for i, p := range preds {
		ex := sq.Examples[i]
		ctxText := strings.Join(ex.DocTokens, " ")
		if p.QasID != ex.QasID || p.Text == "" || (p.Text != emptyPrediction && !strings.Contains(ctxText, p.Text)) {
			t.Errorf("question %s: answer %q not from its context", ex.QasID, p.Text)
		}
	}
	res, err := sq.Score(results)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tiny synthetic model on the small synthetic set: %+v (not meaningful)", res)
	if err := qsl.UnloadSamples(ctx, idx); err != nil {
		t.Fatal(err)
	}
	if qsl.Loaded() != 0 {
		t.Fatalf("%d samples still loaded", qsl.Loaded())
	}
}

// BenchmarkArchFull measures raw ONNX Runtime throughput of the full
// synthetic BERT-large (default threads) at batch 1; the custom metric
// samples/s is per 384-token sample. Building the 1.3 GB model takes a
// while: run it alone (-run '^$' -bench ArchFull -benchtime 3x), or point
// BERT_FULL_MODEL at a file `mlperf model build bert -o FILE` wrote.
func BenchmarkArchFull(b *testing.B) {
	orttest.Need(b)
	path := os.Getenv("BERT_FULL_MODEL")
	if path == "" {
		path = filepath.Join(b.TempDir(), "full.onnx")
		if err := buildFile(path, sizeFull, archSeed); err != nil {
			b.Fatal(err)
		}
	}
	s, err := ort.Open(path, ort.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m, err := New(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			ids, mask, seg := randomInputs(n, []int{180}, 1)
			ctx := context.Background()
			st, _, err := m.Logits(ctx, ids, mask, seg, n) // warm-up
			if err != nil {
				b.Fatal(err)
			}
			lo, hi := slices.Min(st), slices.Max(st)
			if math.IsNaN(float64(lo)) || hi-lo < 0.1 {
				b.Fatalf("full model: start logits in [%v, %v]", lo, hi)
			}
			b.Logf("full model: start logits in [%.3f, %.3f]", lo, hi)
			for b.Loop() {
				if _, _, err := m.Logits(ctx, ids, mask, seg, n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkPoolVsRaw compares the session's Run on one fixed batch of
// real features (raw) with the same model, batch and workers serving the
// features through the QSL, Predict and the harness Pool (pool), the path
// a loadgen Offline run takes; samples/s for each. The tiny model shows
// the harness overhead at its largest; BERT_FULL_MODEL selects a full one.
func BenchmarkPoolVsRaw(b *testing.B) {
	orttest.Need(b)
	path := os.Getenv("BERT_FULL_MODEL")
	if path == "" {
		path = tinyModel(b)
	}
	s, err := ort.Open(path, ort.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ds, err := squad.Load(synthSmallPath)
	if err != nil {
		b.Fatal(err)
	}
	sq, err := newSQuAD(ds, testTokenizer(b), defaultConfig)
	if err != nil {
		b.Fatal(err)
	}
	qsl, err := newQSL(sq, DataConfig{})
	if err != nil {
		b.Fatal(err)
	}
	n := qsl.TotalSampleCount()
	idx := make([]loadgen.SampleIndex, n)
	for i := range idx {
		idx[i] = loadgen.SampleIndex(i)
	}
	ctx := context.Background()
	if err := qsl.LoadSamples(ctx, idx); err != nil {
		b.Fatal(err)
	}
	m, err := New(s, qsl.Sample)
	if err != nil {
		b.Fatal(err)
	}
	// Each iteration runs 8 raw batches, then one query of the same 8
	// batches through the pool, as an Offline query keeps it busy. Both
	// see the same features (cycling over the data set), so that any
	// data-dependent cost of the engine falls on both alike; alternating
	// in small rounds cancels drifts in the machine's speed.
	const batch, rounds = 4, 8
	var rawIn [rounds][]backend.Tensor
	for r := range rounds {
		size := batch * MaxSeqLength
		ids, mask, seg := make([]int64, 0, size), make([]int64, 0, size), make([]int64, 0, size)
		for k := range batch {
			in, _ := qsl.Sample(loadgen.SampleIndex((r*batch + k) % n))
			ids, mask, seg = append(ids, in.IDs...), append(mask, in.Mask...), append(seg, in.Segments...)
		}
		shape := []int64{batch, MaxSeqLength}
		rawIn[r] = []backend.Tensor{
			{Name: inputIDs, DType: backend.Int64, Shape: shape, Data: ids},
			{Name: inputMask, DType: backend.Int64, Shape: shape, Data: mask},
			{Name: inputSegmentIDs, DType: backend.Int64, Shape: shape, Data: seg},
		}
	}
	pool := harness.NewPool(m, harness.PoolConfig{Batch: batch, Workers: 1})
	defer pool.Close()
	samples := make([]loadgen.Sample, rounds*batch)
	var raw, viaPool time.Duration
	for b.Loop() {
		t0 := time.Now()
		for r := range rounds {
			if _, err := s.Run(ctx, rawIn[r]); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		c := loadgentest.NewRecorder()
		for k := range samples {
			samples[k] = loadgen.Sample{ID: loadgen.ResponseID(k + 1), Index: loadgen.SampleIndex(k % n)}
		}
		pool.IssueQuery(ctx, samples, c)
		c.Wait(len(samples))
		raw, viaPool = raw+t1.Sub(t0), viaPool+time.Since(t1)
	}
	perIter := float64(rounds * batch * b.N)
	b.ReportMetric(perIter/raw.Seconds(), "raw-samples/s")
	b.ReportMetric(perIter/viaPool.Seconds(), "pool-samples/s")
	b.ReportMetric(raw.Seconds()/viaPool.Seconds(), "ratio")
}
