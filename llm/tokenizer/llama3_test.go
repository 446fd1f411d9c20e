package tokenizer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	llama3Once sync.Once
	llama3Tok  *Llama3
	llama3Err  error
)

func loadLlama3(t testing.TB) *Llama3 {
	t.Helper()
	llama3Once.Do(func() { llama3Tok, llama3Err = LoadLlama3(filepath.Join(depsDir(), "llama3")) })
	if llama3Err != nil {
		t.Skipf("Llama 3.1 tokenizer data not installed (run make setup): %v", llama3Err)
	}
	return llama3Tok
}

// llama3Golden is testdata/llama3_golden.json (gen_llama3_golden.mjs: the
// npm packages' own encoders, which agree on every text).
type llama3Golden struct {
	Encode []struct {
		Text string
		IDs  []int32
	}
	Decode []struct {
		IDs  []int32
		Skip string
		Keep string
	}
}

func readLlama3Golden(t *testing.T) llama3Golden {
	t.Helper()
	b, err := os.ReadFile("testdata/llama3_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g llama3Golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Encode) < 60 || len(g.Decode) < 6 {
		t.Fatalf("golden has %d encodings and %d decodings", len(g.Encode), len(g.Decode))
	}
	return g
}

func TestLlama3Vocabulary(t *testing.T) {
	tok := loadLlama3(t)
	if n := tok.VocabSize(); n != Llama3VocabSize {
		t.Fatalf("%d ids, want %d", n, Llama3VocabSize)
	}
	if tok.BOS() != Llama3BOSID {
		t.Errorf("BOS %d", tok.BOS())
	}
	if id, ok := tok.SpecialID("<|eot_id|>"); !ok || id != Llama3EOTID {
		t.Errorf("<|eot_id|> = %d, %v", id, ok)
	}
	specials := 0
	for id := range int32(Llama3VocabSize) {
		if tok.IsSpecial(id) {
			specials++
			if id < 128000 {
				t.Errorf("special id %d below 128000", id)
			}
		}
	}
	if specials != 256 {
		t.Errorf("%d special tokens, want 256", specials)
	}
	if !tok.CleanUpSpaces() {
		t.Error("clean_up_tokenization_spaces is false; Meta's tokenizer_config.json says true")
	}
	if m := tok.Merges(); len(m) != 280147 || m[0] != [2]string{"Ġ", "Ġ"} {
		t.Errorf("%d merges, first %q", len(m), m[:1])
	}
	if err := CheckModelVocab(tok, 128256); err != nil {
		t.Error(err)
	}
	if err := CheckModelVocab(tok, 32000); err == nil || !strings.Contains(err.Error(), "Llama 2") {
		t.Errorf("a Llama 2 model for the Llama 3.1 tokenizer: %v", err)
	}
}

// TestLlama3MatchesReference: ids of CNN-DM-style prompts, highlights and
// edge cases (spaces, newlines, contractions, numbers, scripts, emoji,
// special-token strings) equal the reference tokenizers'.
func TestLlama3MatchesReference(t *testing.T) {
	tok := loadLlama3(t)
	g := readLlama3Golden(t)
	long := 0
	for _, e := range g.Encode {
		got := tok.Encode(e.Text, true)
		if !slices.Equal(got, e.IDs) {
			t.Errorf("Encode(%q):\n got %v\nwant %v", e.Text, got, e.IDs)
		}
		if len(e.IDs) > 200 {
			long++
		}
	}
	if long < 4 {
		t.Errorf("only %d long (article) texts in the golden", long)
	}
}

func TestLlama3DecodeMatchesReference(t *testing.T) {
	tok := loadLlama3(t)
	for _, d := range readLlama3Golden(t).Decode {
		if got := tok.Decode(d.IDs, DecodeOptions{SkipSpecial: true, CleanUpSpaces: true}); got != d.Skip {
			t.Errorf("Decode(%v, skip special):\n got %q\nwant %q", d.IDs, got, d.Skip)
		}
		if got := tok.Decode(d.IDs, DecodeOptions{CleanUpSpaces: true}); got != d.Keep {
			t.Errorf("Decode(%v):\n got %q\nwant %q", d.IDs, got, d.Keep)
		}
	}
}

// TestLlama3Onig covers the characters where the JavaScript goldens cannot
// speak for Oniguruma: U+0085 is a space (Unicode White_Space), U+FEFF is
// not, and (?i) folds 's' to 'ſ'.
func TestLlama3Onig(t *testing.T) {
	for _, tc := range []struct {
		text   string
		pieces []string
	}{
		{"a\u0085\u0085b", []string{"a", "\u0085", "\u0085b"}},
		{"x\ufeffy", []string{"x", "\ufeffy"}},
		{"it'ſ", []string{"it", "'ſ"}},
		{"it'S'LL'Ve'dx", []string{"it", "'S", "'LL", "'Ve", "'d", "x"}},
		{"'sam 'x", []string{"'s", "am", " '", "x"}},
		{"12345 ab", []string{"123", "45", " ab"}},
		{"  \n\n  x", []string{"  \n\n", " ", " x"}},
		{"!!\r\n\r\nx", []string{"!!\r\n\r\n", "x"}},
	} {
		var got []string
		for s := tc.text; s != ""; {
			n := llama3Piece(s)
			got = append(got, s[:n])
			s = s[n:]
		}
		if !slices.Equal(got, tc.pieces) {
			t.Errorf("%q split as %q, want %q", tc.text, got, tc.pieces)
		}
	}
}

func TestLlama3RoundTrip(t *testing.T) {
	tok := loadLlama3(t)
	for _, s := range []string{"Hello, world!", "Zürich — 東京 😀", " spaces  and\ttabs\n", "<|eot_id|> kept"} {
		if got := tok.Decode(tok.Encode(s, false), DecodeOptions{}); got != s {
			t.Errorf("round trip of %q gave %q", s, got)
		}
	}
	if got := tok.Decode([]int32{-1, 128256, 9906}, DecodeOptions{}); got != "Hello" {
		t.Errorf("ids outside the vocabulary: %q", got)
	}
	// a character cut in the middle decodes with U+FFFD
	ids := tok.EncodeOrdinary("😀")
	if len(ids) < 2 {
		t.Fatalf("😀 is one token %v", ids)
	}
	if got := tok.Decode(ids[:1], DecodeOptions{}); !strings.Contains(got, "\ufffd") {
		t.Errorf("half an emoji decoded as %q", got)
	}
}

func TestLlama3RefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadLlama3(dir); err == nil || !strings.Contains(err.Error(), "make setup") {
		t.Errorf("missing file: %v", err)
	}
	for name, body := range map[string]string{
		"not json":        "{",
		"wordpiece":       `{"model":{"type":"WordPiece","vocab":{}}}`,
		"gpt2 pretok":     `{"pre_tokenizer":{"type":"ByteLevel"},"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`,
		"byte fallback":   `{"model":{"type":"BPE","byte_fallback":true,"vocab":{}}}`,
		"llama3 no vocab": `{"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":` + jsonString(Llama3Pattern) + `},"behavior":"Isolated"},{"type":"ByteLevel","use_regex":false}]},"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`,
	} {
		p := filepath.Join(dir, "tokenizer.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadLlama3(p)
		if !errors.Is(err, ErrBadData) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// the Llama 2 tokenizer's folder is not a Llama 3 one
	if _, err := LoadLlama3(filepath.Join(depsDir(), "llama2")); err == nil {
		t.Error("loaded the Llama 2 folder as Llama 3")
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func BenchmarkLlama3Encode(b *testing.B) {
	tok := loadLlama3(b)
	text := strings.Repeat("The U.S. economy grew 2.5% in Q3, analysts at J.P. Morgan said on Tuesday. ", 40)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Encode(text, true)
	}
}
