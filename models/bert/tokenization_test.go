package bert

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/model/wordpiece"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretokenizer"
)

func TestVocabFile(t *testing.T) {
	p := testVocabPath(t)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(b)
	if got := hex.EncodeToString(sum[:]); got != vocabMD5 {
		t.Fatalf("%s: md5 %s, want %s", p, got, vocabMD5)
	}
	v := testTokenizer(t).Vocab()
	if v.Size() != VocabSize {
		t.Fatalf("vocab size %d, want %d", v.Size(), VocabSize)
	}
	for tok, want := range map[string]int32{tokenPad: 0, tokenUnk: 100, tokenCLS: 101, tokenSep: 102, tokenMask: 103} {
		if id, ok := v.ID(tok); !ok || id != want {
			t.Errorf("ID(%s) = %d, %v; want %d", tok, id, ok, want)
		}
		if v.Token(want) != tok {
			t.Errorf("Token(%d) = %q, want %s", want, v.Token(want), tok)
		}
	}
	if v.Token(-1) != "" || v.Token(VocabSize) != "" {
		t.Error("Token out of range should be empty")
	}
}

func TestLoadVocabErrors(t *testing.T) {
	dir := t.TempDir()
	noSpecial := filepath.Join(dir, "nospecial.txt")
	if err := os.WriteFile(noSpecial, []byte("[PAD]\nhello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.txt"), "make setup"},
		{noSpecial, "no [UNK] token"},
		{empty, "empty"},
	} {
		_, err := loadVocab(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadVocab(%s) = %v, want error containing %q", filepath.Base(tc.path), err, tc.want)
		}
	}
}

// TestTokenizeGolden compares with transformers 2.4.0 BertTokenizer as built
// by squad_QSL.py (see testdata/gen_goldens.py) and with the BasicTokenizer
// of DeepLearningExamples' tokenization.py that get_final_text uses.
func TestTokenizeGolden(t *testing.T) {
	var cases []struct {
		Text   string   `json:"text"`
		Tokens []string `json:"tokens"`
		IDs    []int32  `json:"ids"`
		Basic  []string `json:"basic"`
	}
	readJSON(t, "testdata/tokenize_golden.json", &cases)
	if len(cases) < 50 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	tok := testTokenizer(t)
	for _, c := range cases {
		toks, ids := tok.Encode(c.Text)
		if !slices.Equal(toks, c.Tokens) && !(len(toks) == 0 && len(c.Tokens) == 0) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.Text, toks, c.Tokens)
		}
		if !slices.Equal(ids, c.IDs) && !(len(ids) == 0 && len(c.IDs) == 0) {
			t.Errorf("ids(%q) = %v, want %v", c.Text, ids, c.IDs)
		}
		if got := basicTokenize(c.Text, nil); !slices.Equal(got, c.Basic) && !(len(got) == 0 && len(c.Basic) == 0) {
			t.Errorf("BasicTokenize(%q) = %q, want %q", c.Text, got, c.Basic)
		}
	}
}

func TestTokenizeCases(t *testing.T) {
	tok := testTokenizer(t)
	long := strings.Repeat("a", defaultMaxInputCharsPerWord)
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"unaffable", []string{"una", "##ffa", "##ble"}},
		{"Hello, World!", []string{"hello", ",", "world", "!"}},
		{"ΟΔΟΣ", []string{"ο", "##δ", "##ος"}}, // final sigma, as Python's str.lower
		{"x[SEP]y", []string{"x", tokenSep, "y"}},
		{"[sep]", []string{"[", "sep", "]"}},
		{long + "a", []string{tokenUnk}}, // 101 code points
		{strings.Repeat("é", 101), []string{tokenUnk}},
		{"北京", []string{"北", "京"}},
		{"a\u00a0b", []string{"a", "b"}},
		{"zero\u200bwidth", []string{"zero", "##wi", "##dt", "##h"}}, // U+200B (Cf) is removed
		{"", nil},
		{" \t\n", nil},
	} {
		got := tok.Tokenize(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSugarmeWordPieceAgrees checks our WordPiece against
// github.com/sugarme/tokenizer's on words after basic tokenization, and its
// whole BERT pipeline (normalizer, pre-tokenizer, model) on plain ASCII
// text. On other text sugarme's pipeline departs from the reference (it
// splits only on ASCII whitespace, lower-cases without final sigma, keeps
// no-break spaces and unassigned code points), which is why basic
// tokenization is ours.
func TestSugarmeWordPieceAgrees(t *testing.T) {
	wp, err := wordpiece.NewWordPieceFromFile(testVocabPath(t), tokenUnk)
	if err != nil {
		t.Fatal(err)
	}
	tk := tokenizer.NewTokenizer(wp)
	tk.WithNormalizer(normalizer.NewBertNormalizer(true, true, true, true))
	tk.WithPreTokenizer(pretokenizer.NewBertPreTokenizer())
	ours := testTokenizer(t)

	var cases []struct {
		Text string `json:"text"`
	}
	readJSON(t, "testdata/tokenize_golden.json", &cases)
	texts := []string{
		"The quick brown fox jumps over the lazy dog.",
		"What is the population of Warsaw in 1895? It's about 1,000,000 (one million)!",
		"Hyperparameterization of transformer-based architectures; e.g. BERT-large.",
		strings.Repeat("supercalifragilistic ", 5),
	}
	for _, c := range cases {
		texts = append(texts, c.Text)
	}
	for _, text := range texts {
		for _, w := range basicTokenize(text, nil) {
			sub, err := wp.Tokenize(w)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, s := range sub {
				want = append(want, s.Value)
			}
			if got := ours.Tokenize(w); !slices.Equal(got, want) {
				t.Errorf("WordPiece(%q) = %q, sugarme %q", w, got, want)
			}
		}
	}
	for _, text := range texts[:4] {
		enc, err := tk.EncodeSingle(text, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := ours.Tokenize(text); !slices.Equal(got, enc.Tokens) {
			t.Errorf("Tokenize(%q) = %q, sugarme pipeline %q", text, got, enc.Tokens)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Hello, World!", "ΟΔΟΣ [SEP]x", "\x00\xff\xfe", "北京\u0301", strings.Repeat("ab", 70), "[[MASK]"} {
		f.Add(s)
	}
	tok := testTokenizer(f)
	f.Fuzz(func(t *testing.T, s string) {
		toks, ids := tok.Encode(s)
		if len(toks) != len(ids) {
			t.Fatalf("%d tokens, %d ids", len(toks), len(ids))
		}
		for i, id := range ids {
			if tok.Vocab().Token(id) != toks[i] {
				t.Fatalf("token %q has id %d (%q)", toks[i], id, tok.Vocab().Token(id))
			}
		}
		for _, w := range basicTokenize(s, nil) {
			if w == "" || !utf8.ValidString(w) && utf8.ValidString(s) {
				t.Fatalf("bad basic token %q", w)
			}
		}
	})
}
