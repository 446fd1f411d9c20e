//go:build cgo

package bert

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/mlperf-go/inference/accuracy"
	"github.com/mlperf-go/inference/backend/ort"
	"github.com/mlperf-go/inference/backend/ort/orttest"
	"github.com/mlperf-go/inference/harness"
	"github.com/mlperf-go/inference/loadgen"
)

// knownAnswerModel opens the known-answer model for the test vocabulary.
func knownAnswerModel(t *testing.T, tok *wordPieceTokenizer) *ort.Session {
	t.Helper()
	orttest.Need(t)
	var ids [2]int64
	for i, w := range []string{knownAnswerStartWord, knownAnswerEndWord} {
		id, ok := tok.Vocab().ID(w)
		if !ok {
			t.Fatalf("marker %q is not a word of the vocabulary", w)
		}
		ids[i] = int64(id)
	}
	g, err := knownAnswerArch(ids[0], ids[1])
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := ort.OpenBytes(buf.Bytes(), ort.Options{IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestKnownAnswerAccuracyEndToEnd runs an accuracy-mode Offline test of the
// known-answer model on its data set through the loadgen, the batching
// pool and the accuracy log, then post-processes and scores the logged
// responses: every answer is known, so exact match and F1 must be 100.
func TestKnownAnswerAccuracyEndToEnd(t *testing.T) {
	tok := testTokenizer(t)
	ds := knownAnswerDataset(24, 7)
	sq, err := newSQuAD(ds, tok, defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(sq.Features) < len(sq.Examples)+8 {
		t.Fatalf("%d features for %d questions: the set should need several spans per question", len(sq.Features), len(sq.Examples))
	}
	qsl, err := newQSL(sq, DataConfig{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(knownAnswerModel(t, tok), qsl.Sample)
	if err != nil {
		t.Fatal(err)
	}
	pool := harness.NewPool(m, harness.PoolConfig{Batch: 3, Workers: 2})
	defer pool.Close()
	s := loadgen.DefaultSettings()
	s.Scenario, s.Mode = loadgen.Offline, loadgen.AccuracyOnly
	out := t.TempDir()
	res, err := loadgen.Run(context.Background(), pool, qsl, s, loadgen.LogSettings{OutDir: out, Prefix: "mlperf_log_"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("accuracy run invalid: %v", res.InvalidReasons)
	}
	results := map[int]Logits{}
	if _, err := accuracy.ReadUnique(filepath.Join(out, "mlperf_log_accuracy.json"), func(e accuracy.Entry) error {
		l, err := DecodeResponse(e.Data)
		results[int(e.QSLIdx)] = l
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(sq.Features) {
		t.Fatalf("%d responses logged for %d features", len(results), len(sq.Features))
	}
	score, err := sq.Score(results)
	if err != nil {
		t.Fatal(err)
	}
	if score.ExactMatch != 100 || score.F1 != 100 || score.Total != len(sq.Examples) {
		preds, _ := sq.Answers(results)
		for i, p := range preds[:min(3, len(preds))] {
			t.Logf("question %s: predicted %q, answer %q", p.QasID, p.Text, ds.Data[0].Paragraphs[i].QAs[0].Answers[0].Text)
		}
		t.Fatalf("exact match %.3f, F1 %.3f over %d questions: want 100 and 100", score.ExactMatch, score.F1, score.Total)
	}
}

// TestKnownAnswerDetectsSwappedLogits shows that the end-to-end test can
// fail: the same responses with start and end exchanged score 0.
func TestKnownAnswerDetectsSwappedLogits(t *testing.T) {
	tok := testTokenizer(t)
	sq, err := newSQuAD(knownAnswerDataset(6, 3), tok, defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	qsl, err := newQSL(sq, DataConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(knownAnswerModel(t, tok), qsl.Sample)
	if err != nil {
		t.Fatal(err)
	}
	n := len(sq.Features)
	idx := make([]loadgen.SampleIndex, n)
	for i := range idx {
		idx[i] = loadgen.SampleIndex(i)
	}
	ctx := context.Background()
	if err := qsl.LoadSamples(ctx, idx); err != nil {
		t.Fatal(err)
	}
	right, swapped := map[int]Logits{}, map[int]Logits{}
	for i := range n {
		in, _ := qsl.Sample(idx[i])
		st, en, err := m.Logits(ctx, in.IDs, in.Mask, in.Segments, 1)
		if err != nil {
			t.Fatal(err)
		}
		var l Logits
		for p := range MaxSeqLength {
			l.Start = append(l.Start, float64(st[p]))
			l.End = append(l.End, float64(en[p]))
		}
		right[i] = l
		swapped[i] = Logits{Start: l.End, End: l.Start}
	}
	good, err := sq.Score(right)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := sq.Score(swapped)
	if err != nil {
		t.Fatal(err)
	}
	if good.ExactMatch != 100 || bad.ExactMatch != 0 || bad.F1 >= 50 {
		t.Fatalf("right %.1f / %.1f, swapped %.1f / %.1f (exact match / F1): want 100 and near 0", good.ExactMatch, good.F1, bad.ExactMatch, bad.F1)
	}
}
