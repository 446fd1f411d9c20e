package bert

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mlperf-go/inference/datasets/squad"
)

// TestFeaturesGolden compares every field of every feature of the synthetic
// file with the reference's convert_examples_to_features.
func TestFeaturesGolden(t *testing.T) {
	multi := compareFeatures(t, synthSmallPath, "testdata/features_golden.json")
	if multi < 10 {
		t.Fatalf("only %d features beyond the first span of their question; the fixture should exercise the doc stride", multi)
	}
}

// compareFeatures builds the features of squadPath and checks them against
// the reference's; it returns how many are not the first span of their
// question.
func compareFeatures(t *testing.T, squadPath, goldenPath string) int {
	t.Helper()
	var golden struct {
		Examples int `json:"examples"`
		Features []struct {
			UniqueID          int64    `json:"unique_id"`
			ExampleIndex      int      `json:"example_index"`
			DocSpanIndex      int      `json:"doc_span_index"`
			Tokens            []string `json:"tokens"`
			TokenToOrigMap    [][2]int `json:"token_to_orig_map"`
			TokenIsMaxContext [][2]any `json:"token_is_max_context"`
			InputIDs          []int64  `json:"input_ids"`
			InputMask         string   `json:"input_mask"`
			SegmentIDs        string   `json:"segment_ids"`
		} `json:"features"`
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
	if len(exs) != golden.Examples {
		t.Fatalf("%d examples, want %d", len(exs), golden.Examples)
	}
	if len(feats) != len(golden.Features) {
		t.Fatalf("%d features, want %d", len(feats), len(golden.Features))
	}
	multi := 0
	ids := make([]int64, MaxSeqLength)
	mask := make([]int64, MaxSeqLength)
	seg := make([]int64, MaxSeqLength)
	for i, g := range golden.Features {
		f := &feats[i]
		if f.UniqueID != g.UniqueID || f.ExampleIndex != g.ExampleIndex || f.DocSpanIndex != g.DocSpanIndex {
			t.Fatalf("feature %d: ids (%d, %d, %d), want (%d, %d, %d)", i, f.UniqueID, f.ExampleIndex, f.DocSpanIndex, g.UniqueID, g.ExampleIndex, g.DocSpanIndex)
		}
		if f.DocSpanIndex > 0 {
			multi++
		}
		if got := f.Tokens(); !slices.Equal(got, g.Tokens) {
			t.Fatalf("feature %d: tokens differ\n got %q\nwant %q", i, got, g.Tokens)
		}
		for pos, tok := range g.Tokens {
			if f.Token(pos) != tok {
				t.Fatalf("feature %d: Token(%d) = %q, want %q", i, pos, f.Token(pos), tok)
			}
		}
		if f.Token(-1) != "" || f.Token(f.Len()) != "" {
			t.Fatalf("feature %d: Token outside the real tokens should be empty", i)
		}
		origMap := map[int]int{}
		for _, kv := range g.TokenToOrigMap {
			origMap[kv[0]] = kv[1]
		}
		maxCtx := map[int]bool{}
		for _, kv := range g.TokenIsMaxContext {
			maxCtx[int(kv[0].(float64))] = kv[1].(bool)
		}
		for pos := -1; pos <= MaxSeqLength; pos++ {
			w, ok := f.OrigIndex(pos)
			gw, gok := origMap[pos]
			if ok != gok || w != gw {
				t.Fatalf("feature %d: OrigIndex(%d) = %d, %v; want %d, %v", i, pos, w, ok, gw, gok)
			}
			if f.IsMaxContext(pos) != maxCtx[pos] {
				t.Fatalf("feature %d: IsMaxContext(%d) = %v, want %v", i, pos, f.IsMaxContext(pos), maxCtx[pos])
			}
		}
		if err := f.Fill(ids, mask, seg); err != nil {
			t.Fatal(err)
		}
		for pos := range MaxSeqLength {
			wantID := int64(0)
			if pos < len(g.InputIDs) {
				wantID = g.InputIDs[pos]
			}
			if ids[pos] != wantID || mask[pos] != int64(g.InputMask[pos]-'0') || seg[pos] != int64(g.SegmentIDs[pos]-'0') {
				t.Fatalf("feature %d position %d: (id, mask, segment) = (%d, %d, %d), want (%d, %c, %c)",
					i, pos, ids[pos], mask[pos], seg[pos], wantID, g.InputMask[pos], g.SegmentIDs[pos])
			}
		}
	}
	return multi
}

// TestFeatureSpansByHand checks the sliding window and max-context rule on
// a document of one-token words with a small configuration, against values
// worked out by hand from create_squad_data.py.
func TestFeatureSpansByHand(t *testing.T) {
	tok := testTokenizer(t)
	// 20 words of one token each.
	words := strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty")
	ex := example{QasID: "q", QuestionText: "who what", DocTokens: words}
	// max_tokens_for_doc = 15 - 2 - 3 = 10; stride 4:
	// spans [0,10) [4,14) [8,18) [12,20).
	cfg := config{MaxSeqLength: 15, MaxQueryLength: 64, DocStride: 4}
	feats, err := buildFeatures([]example{ex}, tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantSpans := [][2]int{{0, 10}, {4, 10}, {8, 10}, {12, 8}}
	if len(feats) != len(wantSpans) {
		t.Fatalf("%d features, want %d", len(feats), len(wantSpans))
	}
	// Max-context span of each document token, by hand: the span with the
	// largest min(left, right) + 0.01*length, the earlier one on ties. For
	// example token 7: span 0 gives min(7,2)+0.1 = 2.1, span 1 min(3,6)+0.1
	// = 3.1, so span 1; token 15: span 2 gives min(7,2)+0.1 = 2.1, span 3
	// (length 8) min(3,4)+0.08 = 3.08, so span 3.
	wantBest := []int{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3}
	for i, f := range feats {
		if f.UniqueID != firstUniqueID+int64(i) || f.ExampleIndex != 0 || f.DocSpanIndex != i {
			t.Errorf("feature %d: ids %d/%d/%d", i, f.UniqueID, f.ExampleIndex, f.DocSpanIndex)
		}
		start, n := wantSpans[i][0], wantSpans[i][1]
		if f.QueryLen != 2 || f.SpanLen() != n || f.Len() != 2+n+3 || f.DocOffset() != 4 {
			t.Fatalf("feature %d: query %d span %d len %d", i, f.QueryLen, f.SpanLen(), f.Len())
		}
		for k := range n {
			pos := f.DocOffset() + k
			if w, ok := f.OrigIndex(pos); !ok || w != start+k {
				t.Errorf("feature %d pos %d: word %d, %v; want %d", i, pos, w, ok, start+k)
			}
			if got, want := f.IsMaxContext(pos), wantBest[start+k] == i; got != want {
				t.Errorf("feature %d, doc token %d: max context %v, want %v", i, start+k, got, want)
			}
			if f.Token(pos) != words[start+k] {
				t.Errorf("feature %d pos %d: token %q", i, pos, f.Token(pos))
			}
		}
	}
}

func TestFeatureQueryTruncation(t *testing.T) {
	tok := testTokenizer(t)
	q := strings.Repeat("why ", 100)
	feats, err := buildFeatures([]example{{QasID: "q", QuestionText: q, DocTokens: []string{"answer"}}}, tok, defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(feats) != 1 || feats[0].QueryLen != maxQueryLength || feats[0].Len() != maxQueryLength+1+3 {
		t.Fatalf("got %d features, query %d, len %d", len(feats), feats[0].QueryLen, feats[0].Len())
	}
}

// An empty context has no document tokens: the reference makes no feature
// for it (and post-processing answers "empty").
func TestFeatureEmptyContext(t *testing.T) {
	tok := testTokenizer(t)
	exs := []example{
		{QasID: "a", QuestionText: "q?", DocTokens: nil},
		{QasID: "b", QuestionText: "q?", DocTokens: []string{"\u200b"}}, // a word with no tokens
		{QasID: "c", QuestionText: "q?", DocTokens: []string{"yes"}},
	}
	feats, err := buildFeatures(exs, tok, defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(feats) != 1 || feats[0].ExampleIndex != 2 || feats[0].UniqueID != firstUniqueID {
		t.Fatalf("features %+v", feats)
	}
	preds, err := postprocess(exs, feats, map[int]Logits{}, defaultPostprocess)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range preds {
		if p.Text != emptyPrediction {
			t.Errorf("%s: %q, want %q", p.QasID, p.Text, emptyPrediction)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tok := testTokenizer(t)
	for _, cfg := range []config{
		{MaxSeqLength: 3, MaxQueryLength: 0, DocStride: 128},
		{MaxSeqLength: 384, MaxQueryLength: 64, DocStride: 0},
		{MaxSeqLength: 384, MaxQueryLength: -1, DocStride: 128},
		{},
	} {
		if _, err := buildFeatures(nil, tok, cfg); !errors.Is(err, errConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", cfg, err)
		}
	}
	ex := []example{{QasID: "long", QuestionText: "why why why", DocTokens: []string{"yes"}}}
	if _, err := buildFeatures(ex, tok, config{MaxSeqLength: 6, MaxQueryLength: 64, DocStride: 1}); !errors.Is(err, errConfig) || !strings.Contains(err.Error(), "long") {
		t.Errorf("query filling the sequence: err %v, want ErrConfig naming the question", err)
	}
	if _, err := buildFeatures(nil, nil, defaultConfig); err == nil {
		t.Error("nil tokenizer accepted")
	}
}

func TestSplitDoc(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b\tc\r\nd\u202fe ", []string{"a", "b", "c", "d", "e"}},
		{"a\u00a0b\u2028c", []string{"a\u00a0b\u2028c"}}, // not SQuAD whitespace
		{"é", []string{"é"}},
	} {
		if got := splitDoc(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SplitDoc(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFillErrors(t *testing.T) {
	_, feats := synthSmall(t)
	f := &feats[0]
	if err := f.Fill(make([]int64, 384), make([]int64, 383), make([]int64, 384)); err == nil {
		t.Error("mismatched buffers accepted")
	}
	if err := f.Fill(make([]int64, 10), make([]int64, 10), make([]int64, 10)); err == nil {
		t.Error("short buffers accepted")
	}
}

func TestExamplesShareDocTokens(t *testing.T) {
	ds, err := squad.Load(synthSmallPath)
	if err != nil {
		t.Fatal(err)
	}
	exs := examples(ds)
	if len(exs) != ds.NumQuestions() {
		t.Fatalf("%d examples for %d questions", len(exs), ds.NumQuestions())
	}
	if &exs[0].DocTokens[0] != &exs[1].DocTokens[0] {
		t.Error("questions of one paragraph should share their DocTokens")
	}
}

// BenchmarkBuildFeaturesDevSized builds the features of a synthetic file
// shaped like dev-v1.1.json (10570 questions, 2067 paragraphs, about 10.8k
// features), tokenization included.
func BenchmarkBuildFeaturesDevSized(b *testing.B) {
	ds, err := squad.Synth(squad.DevSizedSynth)
	if err != nil {
		b.Fatal(err)
	}
	exs := examples(ds)
	tok := testTokenizer(b)
	var n int
	for b.Loop() {
		feats, err := buildFeatures(exs, tok, defaultConfig)
		if err != nil {
			b.Fatal(err)
		}
		n = len(feats)
	}
	b.ReportMetric(float64(n), "features")
}
