package squadeval

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/squad"
	"github.com/mlperf-go/inference/datasets/squad/pytext"
)

// squadGolden is written by models/bert/testdata/gen_goldens.py with the
// reference's evaluate_v1.1.py.
type squadGolden struct {
	Normalize []struct{ S, Norm string }
	Pairs     []struct {
		Pred, Gt string
		EM       bool
		F1       string
	}
	Predictions map[string]string
	Score       string
}

func loadSquadGolden(t testing.TB) (*squadGolden, *squad.Dataset) {
	t.Helper()
	b, err := os.ReadFile("testdata/squad_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g squadGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	ds, err := squad.Load("../../datasets/squad/testdata/synth_small.json")
	if err != nil {
		t.Fatal(err)
	}
	return &g, ds
}

func TestSQuADNormalizeGolden(t *testing.T) {
	g, _ := loadSquadGolden(t)
	for _, c := range g.Normalize {
		if got := Normalize(c.S); got != c.Norm {
			t.Errorf("Normalize(%q) = %q, want %q", c.S, got, c.Norm)
		}
	}
}

func TestSQuADPairsGolden(t *testing.T) {
	g, _ := loadSquadGolden(t)
	for _, c := range g.Pairs {
		if got := ExactMatch(c.Pred, c.Gt); got != c.EM {
			t.Errorf("EM(%q, %q) = %v, want %v", c.Pred, c.Gt, got, c.EM)
		}
		if got := pytext.FloatRepr(F1(c.Pred, c.Gt)); got != c.F1 {
			t.Errorf("F1(%q, %q) = %s, want %s", c.Pred, c.Gt, got, c.F1)
		}
	}
}

// TestScoreSQuADGolden scores predictions (right, wrong, padded and
// missing answers) and compares the printed line with evaluate_v1.1.py's.
func TestScoreSQuADGolden(t *testing.T) {
	g, ds := loadSquadGolden(t)
	res, err := Score(ds, g.Predictions)
	if err != nil {
		t.Fatal(err)
	}
	if res.String() != g.Score {
		t.Errorf("score %s, want %s", res, g.Score)
	}
	if res.Total != ds.NumQuestions() || len(res.Unanswered) != ds.NumQuestions()-len(g.Predictions) {
		t.Errorf("total %d, unanswered %d", res.Total, len(res.Unanswered))
	}
}

func TestScoreSQuADCases(t *testing.T) {
	ds := &squad.Dataset{Version: "1.1", Data: []squad.Article{{Paragraphs: []squad.Paragraph{{
		Context: "The Denver Broncos won.",
		QAs: []squad.QA{
			{ID: "a", Answers: []squad.Answer{{Text: "Denver Broncos"}, {Text: "The Denver Broncos"}}},
			{ID: "b", Answers: []squad.Answer{{Text: "won"}}},
		},
	}}}}}
	res, err := Score(ds, map[string]string{"a": "the denver broncos!", "b": "they won it"})
	if err != nil {
		t.Fatal(err)
	}
	// a: exact; b: precision 1/3, recall 1 -> F1 0.5.
	if res.ExactMatch != 50 || res.F1 != 75 || res.String() != `{"exact_match": 50.0, "f1": 75.0}` {
		t.Errorf("got %s", res)
	}
	var b strings.Builder
	if err := res.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "bert-99: F1 75.0 >= 89.96526: FAIL") {
		t.Errorf("report:\n%s", b.String())
	}

	ds.Data[0].Paragraphs[0].QAs[1].Answers = nil
	if _, err := Score(ds, map[string]string{"a": "x", "b": "y"}); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("question without answers: %v", err)
	}
	// Unanswered questions are reported and score 0, even without answers.
	res, err = Score(ds, map[string]string{"a": "Denver Broncos"})
	if err != nil || res.ExactMatch != 50 || len(res.Unanswered) != 1 || res.Unanswered[0] != "b" {
		t.Errorf("unanswered: %+v %v", res, err)
	}
	if _, err := Score(&squad.Dataset{Version: "1.1"}, nil); err == nil {
		t.Error("empty data set accepted")
	}
}

func TestBERTTargets(t *testing.T) {
	// The checker's values, as Python prints 90.874*0.99 and 90.874*0.999.
	if got := pytext.FloatRepr(BERTTarget(BERT99)); got != "89.96526" {
		t.Errorf("bert-99 target %s", got)
	}
	if got := pytext.FloatRepr(BERTTarget(BERT999)); got != "90.783126" {
		t.Errorf("bert-99.9 target %s", got)
	}
	for _, tc := range []struct {
		f1        float64
		p99, p999 bool
	}{
		{90.874, true, true},
		{90.783126, true, true},
		{90.78312, true, false},
		{89.96526, true, false},
		{89.965, false, false},
	} {
		r := Result{F1: tc.f1}
		if r.Pass(BERT99) != tc.p99 || r.Pass(BERT999) != tc.p999 {
			t.Errorf("F1 %v: pass %v/%v, want %v/%v", tc.f1, r.Pass(BERT99), r.Pass(BERT999), tc.p99, tc.p999)
		}
	}
}

func FuzzSQuADNormalize(f *testing.F) {
	for _, s := range []string{"The Cat!", "ΟΔΟΣ a", "\xff the \x00", "a\u2028an", ""} {
		f.Add(s, "the cat")
	}
	f.Fuzz(func(t *testing.T, pred, gt string) {
		n := Normalize(pred)
		if n != pytext.JoinFields(n) {
			t.Fatalf("Normalize(%q) = %q has loose whitespace", pred, n)
		}
		f1 := F1(pred, gt)
		if f1 < 0 || f1 > 1 {
			t.Fatalf("F1 %v", f1)
		}
		if ExactMatch(pred, gt) && Normalize(pred) != "" && f1 != 1 {
			t.Fatalf("exact match with F1 %v", f1)
		}
	})
}

// BenchmarkScoreSQuADDevSized scores 10570 questions of the dev-sized
// synthetic file, predictions being each question's first answer with a
// word appended.
func BenchmarkScoreSQuADDevSized(b *testing.B) {
	ds, err := squad.Synth(squad.DevSizedSynth)
	if err != nil {
		b.Fatal(err)
	}
	preds := map[string]string{}
	for _, a := range ds.Data {
		for _, p := range a.Paragraphs {
			for _, qa := range p.QAs {
				preds[qa.ID] = qa.Answers[0].Text + " extra"
			}
		}
	}
	for b.Loop() {
		if _, err := Score(ds, preds); err != nil {
			b.Fatal(err)
		}
	}
}
