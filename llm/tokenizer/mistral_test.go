package tokenizer

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mlperf-go/inference/internal/deps"
)

var (
	mistralOnce sync.Once
	mistralTok  *Llama
	mistralErr  error
)

// loadMistral loads the Mixtral tokenizer make setup installs (looked up
// as the binary looks it up), or skips.
func loadMistral(t testing.TB) *Llama {
	t.Helper()
	mistralOnce.Do(func() {
		p, err := deps.Find("mixtral/mistral-tokenizer.js")
		if err != nil {
			mistralErr = err
			return
		}
		mistralTok, mistralErr = LoadMistral(p)
	})
	if mistralErr != nil {
		t.Skipf("Mixtral tokenizer data not installed (run make setup): %v", mistralErr)
	}
	return mistralTok
}

// TestMistralGolden: the ids of mistral-tokenizer-js's own encoder
// (testdata/mistral_golden.json, gen_mistral_golden.mjs) and the text back.
func TestMistralGolden(t *testing.T) {
	tok := loadMistral(t)
	if tok.VocabSize() != MistralVocabSize || tok.Piece(MistralEOSID) != "</s>" || tok.Piece(28705) != "▁" {
		t.Fatalf("vocab %d, 2 = %q, 28705 = %q", tok.VocabSize(), tok.Piece(2), tok.Piece(28705))
	}
	b, err := os.ReadFile("testdata/mistral_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Mistral []struct {
			Text string
			IDs  []int32
		}
	}
	if err := json.Unmarshal(b, &g); err != nil || len(g.Mistral) < 10 {
		t.Fatalf("golden: %d cases, %v", len(g.Mistral), err)
	}
	for _, c := range g.Mistral {
		got := tok.Encode(c.Text, true)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
		if dec := tok.Decode(got, DecodeOptions{SkipSpecial: true}); dec != c.Text {
			t.Errorf("Decode(Encode(%q)) = %q", c.Text, dec)
		}
	}
}

// TestMistralReferenceIDs checks the ids the MLCommons reference shows for
// Mixtral (language/mixtral-8x7b): the start of a data set row's
// tok_input and tok_ref_output (standalone_infer/hf_eval_all.py's
// docstring), and the MBXP stop sequence of dataset.py ("\n```\n"); and
// that Llama 2's vocabulary gives other ids for the same text.
func TestMistralReferenceIDs(t *testing.T) {
	tok := loadMistral(t)
	in := tok.EncodeSpecial("<s> [INST] As an expert problem solver solve step by step", true)
	if want := []int32{1, 1, 28705, 733, 16289, 28793, 1136, 396}; !slices.Equal(in[:len(want)], want) {
		t.Errorf("tok_input starts %v, want %v", in[:len(want)], want)
	}
	if p := tok.Piece(in[8]); p != "▁expert" || in[8]/100 != 75 { // the docstring shows "75..."
		t.Errorf("9th id %d (%q), want 75xx ▁expert", in[8], p)
	}
	out := tok.Encode("The first center processes 10000 packages per day", false)
	if want := []int32{415, 907, 4982, 9537, 28705, 28740, 28734}; !slices.Equal(out[:len(want)], want) {
		t.Errorf("tok_ref_output starts %v, want %v", out[:len(want)], want)
	}
	if s := tok.Decode([]int32{13, 13940, 28832, 13}, DecodeOptions{SkipSpecial: true}); s != "\n```\n" {
		t.Errorf("the MBXP stop sequence decodes to %q", s)
	}
	t.Run("Llama2Differs", func(t *testing.T) {
		l2 := loadLlama(t)
		if a, b := l2.Encode("As an expert", false), tok.Encode("As an expert", false); slices.Equal(a, b) || l2.Piece(415) == "▁The" {
			t.Errorf("Llama 2 and Mixtral agree on %v: the vocabularies are meant to differ", a)
		}
	})
}

// TestEncodeSpecial: special tokens spelled in the text become their ids,
// each piece between them is encoded with its own dummy prefix, and text
// without them encodes as Encode.
func TestEncodeSpecial(t *testing.T) {
	tok := loadMistral(t)
	enc := func(s string) []int32 { return tok.Encode(s, false) }
	cat := func(parts ...[]int32) []int32 { return slices.Concat(parts...) }
	for _, c := range []struct {
		text string
		want []int32
	}{
		{"Hello world", cat([]int32{1}, enc("Hello world"))},
		{"<s> [INST] Q [/INST] A</s> [INST] R [/INST]", cat([]int32{1, 1}, enc(" [INST] Q [/INST] A"), []int32{2}, enc(" [INST] R [/INST]"))},
		{"<s><unk></s>", []int32{1, 1, 0, 2}},
		{"a<s", cat([]int32{1}, enc("a<s"))},
		{"", []int32{1}},
	} {
		if got := tok.EncodeSpecial(c.text, true); !slices.Equal(got, c.want) {
			t.Errorf("EncodeSpecial(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if got := tok.EncodeSpecial("</s>x", false); got[0] != 2 || len(got) != 1+len(enc("x")) {
		t.Errorf("without BOS: %v", got)
	}
}

// TestLoadMistralErrors: a missing file and a Llama 2 file (another
// tokenizer's variable names) are refused with the file named.
func TestLoadMistralErrors(t *testing.T) {
	if _, err := LoadMistral(t.TempDir()); err == nil || !strings.Contains(err.Error(), "mistral-tokenizer-js@1.0.0") {
		t.Errorf("missing: %v", err)
	}
	p, err := deps.Find("llama2/llama-tokenizer.js")
	if err != nil {
		t.Skip(err)
	}
	if _, err := LoadMistral(p); err == nil || !strings.Contains(err.Error(), "no vocab_base64") {
		t.Errorf("Llama 2 file: %v", err)
	}
}
