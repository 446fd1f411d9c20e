package cliptok

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// small is a CLIP-layout vocabulary with a few merges.
func small(t *testing.T, pad string) *Tokenizer {
	t.Helper()
	vocab := map[string]int32{}
	for i, s := range ByteSymbols() {
		vocab[s] = int32(i)
		vocab[s+"</w>"] = int32(256 + i)
	}
	merges := [][2]string{{"c", "a"}, {"ca", "t"}, {"cat", "s</w>"}, {"o", "f</w>"}, {"'", "s</w>"}}
	for _, m := range merges {
		vocab[m[0]+m[1]] = int32(len(vocab))
	}
	vocab[BOS] = int32(len(vocab))
	vocab[EOS] = int32(len(vocab))
	tk, err := New(vocab, merges, pad, ContextLength)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestCleanAndSplit(t *testing.T) {
	if got := Clean("  A  Photo\tOF \u201ccats\u201d\n "); got != `a photo of "cats"` {
		t.Errorf("Clean = %q", got)
	}
	if got := Clean("Cafe\u0301"); got != "caf\u00e9" {
		t.Errorf("Clean does not NFC-normalise: %q", got)
	}
	if got := Clean("Fish &amp; chips \uff21\uff22 \ufb01ne"); got != "fish & chips ab fine" {
		t.Errorf("Clean (entities, full width, ligature) = %q", got)
	}
	if got := Clean("a <b> &amp;"); got != "a <b> &amp;" {
		t.Errorf("Clean unescaped entities of text with '<': %q", got)
	}
	got := pattern.FindAllString(Clean("It's 42 CATS!!"), -1)
	if want := []string{"it", "'s", "4", "2", "cats", "!!"}; !slices.Equal(got, want) {
		t.Errorf("pieces %q, want %q (one digit per piece, contractions apart)", got, want)
	}
}

func TestBPEMergesByRankWithEndOfWord(t *testing.T) {
	tk := small(t, EOS)
	for in, want := range map[string][]string{
		"cats": {"cats</w>"},
		"cat":  {"ca", "t</w>"}, // "cat" never merges with "t</w>"
		"of":   {"of</w>"},
		"off":  {"o", "f", "f</w>"},
		"é":    {"Ã", "©</w>"}, // two UTF-8 bytes, two byte symbols
	} {
		if got := tk.bpe(pattern.FindString(Clean(in))); !slices.Equal(got, want) {
			t.Errorf("bpe(%q) = %q, want %q", in, got, want)
		}
	}
	ids := tk.Encode("Cats of it's")
	want := []int32{tk.vocab["cats</w>"], tk.vocab["of</w>"], tk.vocab["i"], tk.vocab["t</w>"], tk.vocab["'s</w>"]}
	if !slices.Equal(ids, want) {
		t.Errorf("Encode = %v, want %v", ids, want)
	}
}

func TestTokensFrameTruncateAndPad(t *testing.T) {
	for _, pad := range []string{EOS, "!"} {
		tk := small(t, pad)
		ids := tk.Tokens("cats")
		if len(ids) != 77 || ids[0] != tk.bos || ids[1] != tk.vocab["cats</w>"] || ids[2] != tk.eos || ids[3] != tk.vocab[pad] || ids[76] != tk.vocab[pad] {
			t.Errorf("pad %q: Tokens(cats) = %v", pad, ids)
		}
		long := tk.Tokens(strings.Repeat("of ", 100))
		if len(long) != 77 || long[0] != tk.bos || long[75] != tk.vocab["of</w>"] || long[76] != tk.eos {
			t.Errorf("pad %q: truncated tokens = %v", pad, long)
		}
	}
}

func TestWriteLoadAndBadFiles(t *testing.T) {
	vocab, merges := Synthetic("a cat and a dog; the cat sits on the mat, the dog sits on a log", 20)
	v2, m2 := Synthetic("a cat and a dog; the cat sits on the mat, the dog sits on a log", 20)
	if len(vocab) != len(v2) || !slices.Equal(merges, m2) || len(merges) == 0 {
		t.Fatalf("Synthetic is not deterministic or learned nothing: %d merges", len(merges))
	}
	if vocab["!"] != 0 || vocab[EOS] != int32(len(vocab)-1) || vocab[BOS] != int32(len(vocab)-2) {
		t.Errorf("synthetic numbering: ! %d, BOS %d, EOS %d of %d", vocab["!"], vocab[BOS], vocab[EOS], len(vocab))
	}
	dir := t.TempDir()
	if err := Write(dir, vocab, merges, "!", 77); err != nil {
		t.Fatal(err)
	}
	tk, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tk.PadToken != "!" || tk.MaxLen != 77 || tk.VocabSize() != len(vocab) {
		t.Errorf("loaded pad %q, max %d, vocab %d", tk.PadToken, tk.MaxLen, tk.VocabSize())
	}
	ids := tk.Tokens("The cat sits")
	if ids[0] != vocab[BOS] || ids[len(tk.Encode("The cat sits"))+1] != vocab[EOS] || ids[76] != 0 {
		t.Errorf("tokens %v", ids)
	}
	// A merge whose result is not in the vocabulary, a missing file.
	os.WriteFile(filepath.Join(dir, "merges.txt"), []byte("#version: 0.2\nq z\n"), 0o644)
	if _, err := Load(dir); !errors.Is(err, ErrBadData) {
		t.Errorf("bad merge: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "merges.txt"), []byte("#version: 0.2\nq z w\n"), 0o644)
	if _, err := Load(dir); !errors.Is(err, ErrBadData) {
		t.Errorf("three-symbol merge line: %v", err)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "vocab.json") {
		t.Errorf("empty folder: %v", err)
	}
}

// Encode equals OpenAI's CLIP tokenizer (clip/simple_tokenizer.py) on 300
// COCO captions of the reference's selection, SDXL's prompts and edge
// cases (testdata/make_golden.py), over the real vocabulary's ids and
// merge order (the subset those texts use).
func TestEncodeMatchesOpenAIGolden(t *testing.T) {
	tk, err := Load("testdata/clip_subset")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/clip_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		Text string  `json:"text"`
		IDs  []int32 `json:"ids"`
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden) < 300 {
		t.Fatalf("%d golden texts", len(golden))
	}
	bad := 0
	for _, g := range golden {
		if got := tk.Encode(g.Text); !slices.Equal(got, g.IDs) {
			if bad++; bad <= 5 {
				t.Errorf("Encode(%q) = %v, want %v", g.Text, got, g.IDs)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d of %d texts differ", bad, len(golden))
	}
	// CLIP's ids: start 49406, end 49407, "a photo of a cat".
	if ids := tk.Tokens("a photo of a cat"); !slices.Equal(ids[:7], []int32{49406, 320, 1125, 539, 320, 2368, 49407}) {
		t.Errorf("Tokens(a photo of a cat) = %v", ids[:8])
	}
}
