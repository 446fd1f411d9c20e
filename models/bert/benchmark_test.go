package bert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/loadgen"
)

func TestTruncate(t *testing.T) {
	path, err := SynthDataset(filepath.Join(t.TempDir(), "sub", "dev-v1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := OpenData(DataConfig{Dataset: path, Vocab: testVocabPath(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Features) <= full.Dataset.NumQuestions() {
		t.Fatalf("%d features for %d questions", len(full.Features), full.Dataset.NumQuestions())
	}
	for _, n := range []int{1, 2, 5, len(full.Features) - 1, len(full.Features), len(full.Features) + 3} {
		sq, err := OpenData(DataConfig{Dataset: path, Vocab: testVocabPath(t), Count: n})
		if err != nil {
			t.Fatal(err)
		}
		want := min(n, len(full.Features))
		if len(sq.Features) != want {
			t.Fatalf("count %d: %d features", n, len(sq.Features))
		}
		last := sq.Features[want-1].ExampleIndex
		if len(sq.Examples) != last+1 || sq.Dataset.NumQuestions() != last+1 {
			t.Fatalf("count %d: %d examples, %d questions; want %d", n, len(sq.Examples), sq.Dataset.NumQuestions(), last+1)
		}
		// The kept questions are the first ones, in order.
		for i, ex := range examples(sq.Dataset) {
			if ex.QasID != full.Examples[i].QasID {
				t.Fatalf("count %d: question %d is %s, want %s", n, i, ex.QasID, full.Examples[i].QasID)
			}
		}
		// Every question has a prediction, from the features kept.
		results := map[int]Logits{}
		for i := range sq.Features {
			l, _ := DecodeResponse(make([]byte, ResponseBytes))
			results[i] = l
		}
		preds, err := sq.Answers(results)
		if err != nil || len(preds) != last+1 {
			t.Fatalf("count %d: %d predictions, %v", n, len(preds), err)
		}
	}
	if len(full.Truncate(0).Features) != len(full.Features) {
		t.Fatal("Truncate(0) dropped features")
	}
}

func TestSynthDataset(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dev-v1.1.json")
	if _, err := SynthDataset(path); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	// A second call keeps the file.
	if _, err := SynthDataset(path); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(path)
	if !st.ModTime().Equal(st2.ModTime()) {
		t.Fatal("file rewritten")
	}
	ds, err := squad.Load(path)
	if err != nil || ds.NumQuestions() != squad.SmallSynth.Questions {
		t.Fatalf("%v, %v", ds, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": "2.0", "data": []}`), 0o644)
	if _, err := SynthDataset(bad); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Fatalf("bad file: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("left %d files behind", len(ents))
	}
}

func TestQSL(t *testing.T) {
	exs, feats := synthSmall(t)
	sq := &SQuAD{Examples: exs, Features: feats}
	q, err := newQSL(sq, DataConfig{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if q.TotalSampleCount() != len(feats) || q.PerformanceSampleCount() != len(feats) {
		t.Fatalf("counts %d %d", q.TotalSampleCount(), q.PerformanceSampleCount())
	}
	idx := []loadgen.SampleIndex{3, 0, 3}
	if err := q.LoadSamples(context.Background(), idx); err != nil {
		t.Fatal(err)
	}
	for _, i := range idx {
		in, ok := q.Sample(i)
		want, _ := NewInput(&feats[i])
		if !ok || i64bytes(in.IDs) == nil || string(i64bytes(in.IDs)) != string(i64bytes(want.IDs)) || string(i64bytes(in.Segments)) != string(i64bytes(want.Segments)) {
			t.Fatalf("sample %d differs from its feature", i)
		}
	}
	if _, ok := q.Sample(1); ok {
		t.Fatal("sample 1 loaded")
	}
	if _, err := newQSL(&SQuAD{}, DataConfig{}); err == nil {
		t.Fatal("empty QSL accepted")
	}
}
