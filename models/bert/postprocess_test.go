package bert

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mlperf-go/inference/accuracy/squadeval"
	"github.com/mlperf-go/inference/datasets/squad"
)

// TestPostprocessGolden feeds the logged responses that gen_goldens.py made
// (answers boosted on the true span, invalid spans, ties, flat logits,
// missing and short responses), compares the answer texts with
// accuracy-squad.py's write_predictions and the score line with
// evaluate_v1.1.py's.
func TestPostprocessGolden(t *testing.T) {
	comparePostprocess(t, synthSmallPath, "testdata/postprocess_golden.json")
}

func comparePostprocess(t *testing.T, squadPath, goldenPath string) {
	var golden struct {
		Log []struct {
			QslIdx int    `json:"qsl_idx"`
			Data   string `json:"data"`
		} `json:"log"`
		Predictions map[string]string `json:"predictions"`
		Score       string            `json:"score"`
	}
	readJSON(t, goldenPath, &golden)
	ds, err := squad.Load(squadPath)
	if err != nil {
		t.Fatal(err)
	}
	exs := examples(ds)
	feats, err := buildFeatures(exs, testTokenizer(t), defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	results := map[int]Logits{}
	for _, e := range golden.Log {
		b, err := hex.DecodeString(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		l, err := DecodeResponse(b)
		if err != nil {
			t.Fatal(err)
		}
		results[e.QslIdx] = l
	}
	if len(results) == len(feats) {
		t.Fatal("fixture should leave some features without a response")
	}
	preds, err := postprocess(exs, feats, results, defaultPostprocess)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != len(golden.Predictions) {
		t.Fatalf("%d predictions, want %d", len(preds), len(golden.Predictions))
	}
	byID := map[string]string{}
	for _, p := range preds {
		if want := golden.Predictions[p.QasID]; p.Text != want {
			t.Errorf("%s: %q, want %q", p.QasID, p.Text, want)
		}
		byID[p.QasID] = p.Text
	}
	score, err := squadeval.Score(ds, byID)
	if err != nil {
		t.Fatal(err)
	}
	if score.String() != golden.Score {
		t.Errorf("score %s, want %s", score, golden.Score)
	}
}

func TestGetFinalTextGolden(t *testing.T) {
	var cases []struct{ Pred, Orig, Out string }
	readJSON(t, "testdata/final_text_golden.json", &cases)
	for _, c := range cases {
		if got := getFinalText(c.Pred, c.Orig); got != c.Out {
			t.Errorf("GetFinalText(%q, %q) = %q, want %q", c.Pred, c.Orig, got, c.Out)
		}
	}
}

func TestGetFinalTextCases(t *testing.T) {
	for _, tc := range []struct{ pred, orig, want, why string }{
		{"steve smith", "Steve Smith's", "Steve Smith", "trailing 's dropped"},
		{"1895", "(1895-1943).", "1895", "punctuation around"},
		{"cafe", "Café", "Café", "accents restored"},
		{"mars", "Steve Smith's", "Steve Smith's", "not found: whole original"},
		{"ete", "e\u0301te\u0301", "e\u0301te\u0301", "decomposed accents change the length: whole original"},
		{"b", "a\u00a0b", "a\u00a0b", "no-break space inside a word: lengths differ"},
		{"", "x", "x", "empty prediction: end before start"},
		{"the", "the the", "the", "first occurrence"},
	} {
		if got := getFinalText(tc.pred, tc.orig); got != tc.want {
			t.Errorf("%s: GetFinalText(%q, %q) = %q, want %q", tc.why, tc.pred, tc.orig, got, tc.want)
		}
	}
}

// handFeature builds one example and its features with a small window so
// that positions are easy to reason about.
func handFeature(t *testing.T) ([]example, []feature) {
	t.Helper()
	// Tokens of the context: [the, quick, brown, fox, (, 1895, -, 1943, ),
	// ., steve, smith, ', s, house]; word indices 0..7.
	doc := strings.Fields("The quick brown fox (1895-1943). Steve Smith's house")
	exs := []example{{QasID: "q1", QuestionText: "who", DocTokens: doc}}
	feats, err := buildFeatures(exs, testTokenizer(t), defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(feats) != 1 || feats[0].DocOffset() != 3 || feats[0].SpanLen() != 15 {
		t.Fatalf("unexpected features: %d, offset %d, span %d", len(feats), feats[0].DocOffset(), feats[0].SpanLen())
	}
	return exs, feats
}

// logits returns flat logits with the given boosts (position → value).
func logits(start, end map[int]float64) Logits {
	l := Logits{Start: make([]float64, MaxSeqLength), End: make([]float64, MaxSeqLength)}
	for p, v := range start {
		l.Start[p] = v
	}
	for p, v := range end {
		l.End[p] = v
	}
	return l
}

func TestPostprocessHandBuilt(t *testing.T) {
	exs, feats := handFeature(t)
	// Document token k sits at position 3+k.
	const o = 3
	for _, tc := range []struct {
		name  string
		start map[int]float64
		end   map[int]float64
		want  string
	}{
		{"best span", map[int]float64{o + 10: 5}, map[int]float64{o + 11: 5}, "Steve Smith"},
		{"inside a word with punctuation", map[int]float64{o + 5: 5}, map[int]float64{o + 5: 5}, "1895"},
		{"whole word span", map[int]float64{o + 4: 5}, map[int]float64{o + 8: 5}, "(1895-1943)"},
		{"start in the query is skipped", map[int]float64{1: 50, o: 3}, map[int]float64{o + 1: 5}, "The quick"},
		{"end before start is skipped", map[int]float64{o + 3: 9, o: 1}, map[int]float64{o + 1: 9}, "The quick"},
		{"end in padding is skipped", map[int]float64{o + 2: 5}, map[int]float64{300: 50, o + 3: 1}, "brown fox"},
		{"ties: lowest positions first", nil, nil, "The"},
		{"start on [SEP] is skipped", map[int]float64{o + 15: 50, o + 14: 1}, map[int]float64{o + 14: 1}, "house"},
		{"span ending inside a word", map[int]float64{o + 10: 2}, map[int]float64{o + 13: 2}, "Steve Smith's"},
	} {
		l := logits(tc.start, tc.end)
		preds, err := postprocess(exs, feats, map[int]Logits{0: l}, defaultPostprocess)
		if err != nil {
			t.Fatal(err)
		}
		if preds[0].Text != tc.want || preds[0].QasID != "q1" {
			t.Errorf("%s: %q, want %q", tc.name, preds[0].Text, tc.want)
		}
	}
	// Longer than MaxAnswerLength: the next best span wins.
	l := logits(map[int]float64{o: 10, o + 1: 1}, map[int]float64{o + 5: 10, o + 2: 1})
	preds, err := postprocess(exs, feats, map[int]Logits{0: l}, postprocessConfig{NBestSize: 20, MaxAnswerLength: 3})
	if err != nil || preds[0].Text != "The quick brown" {
		t.Errorf("too long: %q %v, want %q", preds[0].Text, err, "The quick brown")
	}
	preds, _ = postprocess(exs, feats, map[int]Logits{0: l}, defaultPostprocess)
	if preds[0].Text != "The quick brown fox (1895" {
		t.Errorf("6 tokens within 30: %q", preds[0].Text)
	}
	// No response at all: "empty".
	preds, err = postprocess(exs, feats, nil, defaultPostprocess)
	if err != nil || preds[0].Text != emptyPrediction {
		t.Errorf("no results: %v %v", preds, err)
	}
	// Only invalid candidates: "empty".
	l = logits(nil, nil)
	for i := range l.Start {
		l.Start[i], l.End[i] = -100, -100
	}
	for _, p := range []int{0, 1, 2} { // [CLS], query, [SEP]
		l.Start[p], l.End[p] = 100, 100
	}
	preds, _ = postprocess(exs, feats, map[int]Logits{0: l}, postprocessConfig{NBestSize: 3, MaxAnswerLength: 30})
	if preds[0].Text != emptyPrediction {
		t.Errorf("only invalid spans: %q, want %q", preds[0].Text, emptyPrediction)
	}
}

func TestPostprocessMaxContext(t *testing.T) {
	// Two spans over a 20-word document; the candidate whose start is not
	// max-context in its span is dropped in favour of a lower-scoring one.
	words := strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty")
	exs := []example{{QasID: "q", QuestionText: "who what", DocTokens: words}}
	feats, err := buildFeatures(exs, testTokenizer(t), config{MaxSeqLength: 15, MaxQueryLength: 64, DocStride: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Doc token 8 ("nine") is in spans 0, 1, 2; its max context is span 1.
	// Feature 0: start at token 8 (position 4+8), high score: dropped.
	// Feature 1: start at token 8 (position 4+4), lower score: kept.
	l0 := logits(map[int]float64{4 + 8: 20}, map[int]float64{4 + 9: 20})
	l1 := logits(map[int]float64{4 + 4: 5}, map[int]float64{4 + 4: 5})
	for _, l := range []Logits{l0, l1} {
		for i := range l.Start {
			if l.Start[i] == 0 {
				l.Start[i] = -100
			}
			if l.End[i] == 0 {
				l.End[i] = -100
			}
		}
	}
	preds, err := postprocess(exs, feats, map[int]Logits{0: l0, 1: l1}, defaultPostprocess)
	if err != nil {
		t.Fatal(err)
	}
	if preds[0].Text != "nine" {
		t.Fatalf("got %q, want %q", preds[0].Text, "nine")
	}
}

func TestPostprocessErrors(t *testing.T) {
	exs, feats := handFeature(t)
	if _, err := postprocess(exs, feats, map[int]Logits{5: logits(nil, nil)}, defaultPostprocess); err == nil {
		t.Error("qsl index out of range accepted")
	}
	bad := Logits{Start: make([]float64, 384), End: make([]float64, 3)}
	if _, err := postprocess(exs, feats, map[int]Logits{0: bad}, defaultPostprocess); err == nil {
		t.Error("uneven logits accepted")
	}
	if _, err := postprocess(exs, feats, nil, postprocessConfig{}); err == nil {
		t.Error("zero config accepted")
	}
	if _, err := postprocess(nil, feats, nil, defaultPostprocess); err == nil {
		t.Error("features of missing examples accepted")
	}
}

func TestBestIndexes(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		in   []float64
		n    int
		want []int
	}{
		{[]float64{1, 3, 2}, 2, []int{1, 2}},
		{[]float64{1, 1, 1, 1}, 3, []int{0, 1, 2}},
		{[]float64{0, 2, 2, 5, 2}, 3, []int{3, 1, 2}},
		{[]float64{nan, 1, nan, 0}, 4, []int{1, 3, 0, 2}},
		{[]float64{1}, 20, []int{0}},
	} {
		if got := bestIndexes(tc.in, tc.n, nil); !slices.Equal(got, tc.want) {
			t.Errorf("bestIndexes(%v, %d) = %v, want %v", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestResponseRoundTrip(t *testing.T) {
	start := make([]float32, MaxSeqLength)
	end := make([]float32, MaxSeqLength)
	for i := range start {
		start[i], end[i] = float32(i)*0.5, -float32(i)
	}
	b, err := EncodeResponse(nil, start, end)
	if err != nil || len(b) != ResponseBytes || ResponseBytes != 3072 {
		t.Fatalf("EncodeResponse: %d bytes, %v", len(b), err)
	}
	if math.Float32frombits(binary.LittleEndian.Uint32(b[8*7+4:])) != -7 {
		t.Fatal("layout is not (start, end) interleaved")
	}
	l, err := DecodeResponse(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range start {
		if l.Start[i] != float64(start[i]) || l.End[i] != float64(end[i]) {
			t.Fatalf("position %d: %v %v", i, l.Start[i], l.End[i])
		}
	}
	if _, err := EncodeResponse(nil, start, end[:3]); err == nil {
		t.Error("uneven logits accepted")
	}
}

func TestDecodeLogits(t *testing.T) {
	le := binary.LittleEndian
	// Two positions, start (1, 2), end (3, 4), padded with -10000.
	f16 := []byte{}
	for _, h := range []uint16{0x3c00, 0x4200, 0x4000, 0x4400} { // 1, 3, 2, 4
		f16 = le.AppendUint16(f16, h)
	}
	i8 := []byte{1, 3, 2, 4}
	f64 := []byte{}
	for _, v := range []float64{1, 3, 2, 4} {
		f64 = le.AppendUint64(f64, math.Float64bits(v))
	}
	i32T := []byte{}
	for _, v := range []int32{1, 2, 3, 4} { // transposed: starts then ends
		i32T = le.AppendUint32(i32T, uint32(v))
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		dtype string
		tr    bool
	}{
		{"float16", f16, "float16", false},
		{"int8", i8, "int8", false},
		{"float64", f64, "float64", false},
		{"int32 transposed", i32T, "int32", true},
	} {
		l, err := decodeLogits(tc.data, tc.dtype, tc.tr)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if l.Start[0] != 1 || l.Start[1] != 2 || l.End[0] != 3 || l.End[1] != 4 || l.Start[2] != padLogit || l.End[383] != padLogit {
			t.Errorf("%s: start %v end %v", tc.name, l.Start[:3], l.End[:3])
		}
	}
	for _, tc := range []struct {
		data  []byte
		dtype string
	}{
		{make([]byte, 6), "float32"},
		{make([]byte, 8*385), "float32"},
		{make([]byte, 8), "bfloat16"},
	} {
		if _, err := decodeLogits(tc.data, tc.dtype, false); !errors.Is(err, errResponse) {
			t.Errorf("%d bytes of %s: %v, want ErrResponse", len(tc.data), tc.dtype, err)
		}
	}
	if h := halfToFloat(0x7c00); !math.IsInf(h, 1) {
		t.Errorf("half inf = %v", h)
	}
	if h := halfToFloat(0x0001); h != math.Ldexp(1, -24) {
		t.Errorf("half subnormal = %v", h)
	}
	if h := halfToFloat(0xfe00); !math.IsNaN(h) {
		t.Errorf("half nan = %v", h)
	}
}

func FuzzGetFinalText(f *testing.F) {
	f.Add("steve smith", "Steve Smith's")
	f.Add("", "")
	f.Add("a", "\u0301a\u00a0")
	f.Add("ς", "ΟΣ Σ")
	f.Fuzz(func(t *testing.T, pred, orig string) {
		out := getFinalText(pred, orig)
		// Texts come from JSON and are valid UTF-8; invalid bytes read as
		// U+FFFD, so only valid input must give back a part of itself.
		if utf8.ValidString(orig) && out != orig && !strings.Contains(orig, out) {
			t.Fatalf("GetFinalText(%q, %q) = %q, not a part of the original", pred, orig, out)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte{}, "float32", false)
	f.Add(make([]byte, 3072), "float32", true)
	f.Add([]byte{1, 2, 3}, "float16", false)
	f.Fuzz(func(t *testing.T, data []byte, dtype string, tr bool) {
		l, err := decodeLogits(data, dtype, tr)
		if err == nil && (len(l.Start) != MaxSeqLength || len(l.End) != MaxSeqLength) {
			t.Fatalf("%d/%d logits", len(l.Start), len(l.End))
		}
	})
}

// BenchmarkPostprocessDevSized turns one response per feature of the
// dev-sized synthetic file (about 10.8k) into answer texts.
func BenchmarkPostprocessDevSized(b *testing.B) {
	ds, err := squad.Synth(squad.DevSizedSynth)
	if err != nil {
		b.Fatal(err)
	}
	exs := examples(ds)
	feats, err := buildFeatures(exs, testTokenizer(b), defaultConfig)
	if err != nil {
		b.Fatal(err)
	}
	results := make(map[int]Logits, len(feats))
	rng := uint64(42)
	next := func() float64 { // xorshift, fixed seed
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return float64(rng>>40)/float64(1<<24)*8 - 4
	}
	for i := range feats {
		l := Logits{Start: make([]float64, MaxSeqLength), End: make([]float64, MaxSeqLength)}
		for p := range l.Start {
			l.Start[p], l.End[p] = next(), next()
		}
		results[i] = l
	}
	for b.Loop() {
		if _, err := postprocess(exs, feats, results, defaultPostprocess); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSQuADScoreEndToEnd(t *testing.T) {
	s, err := loadSQuAD(synthSmallPath, testVocabPath(t), defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	// Boost every question's first answer span in the feature where its
	// first token has max context: the answers must all be exact.
	results := map[int]Logits{}
	for fi := range s.Features {
		f := &s.Features[fi]
		l := logits(nil, nil)
		ws, we := answerWords(t, s, f.ExampleIndex)
		for pos := f.DocOffset(); pos < f.Len()-1; pos++ {
			w, _ := f.OrigIndex(pos)
			if w == ws && f.IsMaxContext(pos) && l.Start[pos] == 0 {
				if prev, ok := f.OrigIndex(pos - 1); !ok || prev != ws {
					l.Start[pos] = 10
				}
			}
			if w == we {
				if next, ok := f.OrigIndex(pos + 1); !ok || next != we {
					l.End[pos] = 10
				}
			}
		}
		results[fi] = l
	}
	res, err := s.Score(results)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExactMatch != 100 || res.F1 != 100 {
		t.Fatalf("score %s, want 100/100", res)
	}
	if _, err := loadSQuAD(synthSmallPath, "/nonexistent/vocab.txt", defaultConfig); err == nil {
		t.Error("missing vocab accepted")
	}
}

// answerWords maps the first answer of example ei to word indices.
func answerWords(t *testing.T, s *SQuAD, ei int) (int, int) {
	t.Helper()
	i := 0
	for _, a := range s.Dataset.Data {
		for _, p := range a.Paragraphs {
			for _, qa := range p.QAs {
				if i == ei {
					ans := qa.Answers[0]
					start := ans.AnswerStart
					end := start + utf8.RuneCountInString(ans.Text) - 1
					return charToWord(p.Context, start), charToWord(p.Context, end)
				}
				i++
			}
		}
	}
	t.Fatalf("no example %d", ei)
	return 0, 0
}

func charToWord(ctx string, char int) int {
	word, prevWS := -1, true
	for i, r := range []rune(ctx) {
		ws := r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == 0x202F
		if !ws && prevWS {
			word++
		}
		prevWS = ws
		if i == char {
			return word
		}
	}
	return word
}
