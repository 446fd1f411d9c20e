package rouge

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// rougeGolden is testdata/rouge_golden.json, written by
// testdata/gen_rouge_golden.py with NLTK 3.8 and rouge_score.
type rougeGolden struct {
	Sentences []struct {
		Text  string   `json:"text"`
		Sents []string `json:"sents"`
	} `json:"sentences"`
	Stems  map[string]string `json:"stems"`
	Tokens []struct {
		Text   string   `json:"text"`
		Tokens []string `json:"tokens"`
	} `json:"tokens"`
	Pairs []struct {
		Prediction     string               `json:"prediction"`
		Target         string               `json:"target"`
		PostPrediction string               `json:"post_prediction"`
		PostTarget     string               `json:"post_target"`
		Scores         map[string][]float64 `json:"scores"`
	} `json:"pairs"`
	TokenCounts []int  `json:"token_counts"`
	GPTJPrint   string `json:"gptj_print"`
	Llama2Print string `json:"llama2_print"`
}

func loadRougeGolden(t *testing.T) rougeGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/rouge_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g rougeGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSentTokenizeGolden(t *testing.T) {
	g := loadRougeGolden(t)
	for _, c := range g.Sentences {
		got := SentTokenize(c.Text)
		if !slices.Equal(got, c.Sents) && !(len(got) == 0 && len(c.Sents) == 0) {
			t.Errorf("SentTokenize(%q)\n got %q\nwant %q", c.Text, got, c.Sents)
		}
	}
}

func TestPorterStemGolden(t *testing.T) {
	g := loadRougeGolden(t)
	if len(g.Stems) < 200 {
		t.Fatalf("only %d stems in the golden file", len(g.Stems))
	}
	for w, want := range g.Stems {
		if got := PorterStem(w); got != want {
			t.Errorf("PorterStem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestRougeTokenizeGolden(t *testing.T) {
	g := loadRougeGolden(t)
	for _, c := range g.Tokens {
		got := Tokenize(c.Text, true)
		if !slices.Equal(got, c.Tokens) && !(len(got) == 0 && len(c.Tokens) == 0) {
			t.Errorf("Tokenize(%q)\n got %q\nwant %q", c.Text, got, c.Tokens)
		}
	}
}

func TestRougeScoresGolden(t *testing.T) {
	g := loadRougeGolden(t)
	sc := NewScorer(true)
	for i, p := range g.Pairs {
		pp, tt := Postprocess(p.Prediction), Postprocess(p.Target)
		if pp != p.PostPrediction || tt != p.PostTarget {
			t.Errorf("pair %d postprocess\n got %q / %q\nwant %q / %q", i, pp, tt, p.PostPrediction, p.PostTarget)
			continue
		}
		s := sc.Score(tt, pp)
		for name, got := range map[string]Score{"rouge1": s.Rouge1, "rouge2": s.Rouge2, "rougeL": s.RougeL, "rougeLsum": s.RougeLsum} {
			want := p.Scores[name]
			if got.Precision != want[0] || got.Recall != want[1] || got.F != want[2] {
				t.Errorf("pair %d %s = %v, want %v", i, name, got, want)
			}
		}
	}
}

func TestRougeEvaluatePrints(t *testing.T) {
	g := loadRougeGolden(t)
	var preds, targets []string
	for _, p := range g.Pairs {
		preds = append(preds, p.Prediction)
		targets = append(targets, p.Target)
	}
	res, err := Evaluate(preds, targets, g.TokenCounts)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.GPTJString(); got != g.GPTJPrint {
		t.Errorf("GPT-J print\n got %s\nwant %s", got, g.GPTJPrint)
	}
	if got := res.Llama2String(); got != g.Llama2Print {
		t.Errorf("Llama 2 print\n got %s\nwant %s", got, g.Llama2Print)
	}
	if _, err := Evaluate(preds[:2], targets, nil); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := Evaluate(nil, nil, nil); err == nil {
		t.Error("empty input accepted")
	}
}

func FuzzRougeTokenize(f *testing.F) {
	for _, s := range []string{"Hello, world!", "İstanbul \u212a", "caresses ponies", "", "\xff\xfe", "a.b.c. ... --"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s, true) {
			if tok == "" || strings.Trim(tok, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
				t.Fatalf("bad token %q from %q", tok, s)
			}
		}
		PorterStem(s)
		sents := SentTokenize(s)
		for _, x := range sents {
			if x == "" {
				t.Fatalf("empty sentence from %q", s)
			}
		}
		Postprocess(s)
		NewScorer(true).Score(s, strings.ToUpper(s))
	})
}

// rougeBenchPairs makes n prediction/target pairs of about words tokens
// each from a fixed vocabulary, with sentence punctuation (seeded).
func rougeBenchPairs(n, words int) (preds, targets []string) {
	vocab := strings.Fields("police said the man was arrested on monday after a chase through downtown streets officials say economy grew percent running connection generalization universities hopeful replacement dependent adoption Mr. Dr. U.S. Inc. 5 10 2019 market shares rose fell investors company reported profits quarter analysts expected")
	r := rand.New(rand.NewPCG(1, 2))
	mk := func() string {
		var b strings.Builder
		for i := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[r.IntN(len(vocab))])
			if r.IntN(12) == 0 {
				b.WriteString(".")
			} else if r.IntN(15) == 0 {
				b.WriteString(",")
			}
		}
		b.WriteString(".")
		return b.String()
	}
	for range n {
		preds = append(preds, mk())
		targets = append(targets, mk())
	}
	return preds, targets
}

// BenchmarkRougeEvaluate24576 scores 24,576 pairs of 300 tokens end to end
// (postprocess with sentence splitting, tokenise and stem, rouge1/2/L/Lsum,
// aggregate), the size of the Llama 2 data set.
func BenchmarkRougeEvaluate24576(b *testing.B) {
	preds, targets := rougeBenchPairs(24576, 300)
	for b.Loop() {
		if _, err := Evaluate(preds, targets, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLCSLengthBitParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	w := newRougeWork(false)
	for range 500 {
		a := make([]int32, r.IntN(200))
		b := make([]int32, r.IntN(200))
		alpha := int32(1 + r.IntN(12))
		for i := range a {
			a[i] = r.Int32N(alpha)
		}
		for i := range b {
			b[i] = r.Int32N(alpha)
		}
		want := 0
		if len(a) > 0 && len(b) > 0 {
			tab := rougeLCSTable(a, b, nil)
			want = int(tab[len(tab)-1])
		}
		if got := w.lcsLength(a, b); got != want {
			t.Fatalf("lcs(%v, %v) = %d, want %d", a, b, got, want)
		}
	}
}
