package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// depsDir is where make setup puts the tokenizer data: $MLPERF_DEPS, else
// the repository's .deps.
func depsDir() string {
	if d := os.Getenv("MLPERF_DEPS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", ".deps")
}

var (
	gpt2Once, llamaOnce sync.Once
	gpt2Tok             *GPT2
	llamaTok            *Llama
	gpt2Err, llamaErr   error
)

func loadGPT2(t testing.TB) *GPT2 {
	t.Helper()
	gpt2Once.Do(func() { gpt2Tok, gpt2Err = LoadGPT2(filepath.Join(depsDir(), "gptj")) })
	if gpt2Err != nil {
		t.Skipf("GPT-2 tokenizer data not installed (run make setup): %v", gpt2Err)
	}
	return gpt2Tok
}

func loadLlama(t testing.TB) *Llama {
	t.Helper()
	llamaOnce.Do(func() { llamaTok, llamaErr = LoadLlama(filepath.Join(depsDir(), "llama2")) })
	if llamaErr != nil {
		t.Skipf("Llama tokenizer data not installed (run make setup): %v", llamaErr)
	}
	return llamaTok
}

type golden struct {
	GPT2 []struct {
		Text string
		IDs  []int32
	} `json:"gpt2"`
	Llama []struct {
		Text string
		IDs  []int32
	} `json:"llama"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGPT2Golden(t *testing.T) {
	tok := loadGPT2(t)
	if tok.VocabSize() != 50257 || tok.EOS() != 50256 {
		t.Fatalf("vocab %d, eos %d", tok.VocabSize(), tok.EOS())
	}
	for _, c := range readGolden(t).GPT2 {
		got := tok.Encode(c.Text)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
		if dec := tok.Decode(got, DecodeOptions{}); dec != c.Text {
			t.Errorf("Decode(Encode(%q)) = %q", c.Text, dec)
		}
	}
}

func TestLlamaGolden(t *testing.T) {
	tok := loadLlama(t)
	if tok.VocabSize() != 32000 || tok.Piece(LlamaSpaceID) != "▁" || tok.Piece(LlamaEOSID) != "</s>" {
		t.Fatalf("vocab %d, 29871 = %q", tok.VocabSize(), tok.Piece(LlamaSpaceID))
	}
	for _, c := range readGolden(t).Llama {
		got := tok.Encode(c.Text, true)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
		if dec := tok.Decode(got, DecodeOptions{SkipSpecial: true}); dec != c.Text {
			t.Errorf("Decode(Encode(%q)) = %q", c.Text, dec)
		}
	}
}

func TestKnownIDs(t *testing.T) {
	g := loadGPT2(t)
	l := loadLlama(t)
	if got := g.Encode("Hello world"); !slices.Equal(got, []int32{15496, 995}) {
		t.Errorf("GPT-2 Hello world = %v", got)
	}
	if got := g.Encode("a<|endoftext|>b"); !slices.Equal(got, []int32{64, 50256, 65}) {
		t.Errorf("GPT-2 special = %v", got)
	}
	// from llama-tokenizer-js's README and runTests
	for _, c := range []struct {
		text string
		ids  []int32
	}{
		{"Hello world", []int32{1, 15043, 3186}},
		{"Hello world!", []int32{1, 15043, 3186, 29991}},
		{"grabbed", []int32{1, 2646, 1327, 287}},
		{" grabbed", []int32{1, 29871, 2646, 1327, 287}},
		{"           grabbed", []int32{1, 9651, 2646, 1327, 287}},
		{"\n", []int32{1, 29871, 13}},
		{" \n", []int32{1, 259, 13}},
		{"\ttabs\t\t\t\tout here", []int32{1, 29871, 12, 21175, 12, 12, 12, 12, 449, 1244}},
		{"ax\n####\nboo", []int32{1, 4853, 13, 4136, 13, 833, 29877}},
		{"镇", []int32{1, 29871, 30411}},
		{"🦙", []int32{1, 29871, 243, 162, 169, 156}},
		{"🦙Ꙋ", []int32{1, 29871, 243, 162, 169, 156, 237, 156, 141}},
		{"Ꙋ🦙", []int32{1, 29871, 237, 156, 141, 243, 162, 169, 156}},
	} {
		if got := l.Encode(c.text, true); !slices.Equal(got, c.ids) {
			t.Errorf("Llama %q = %v, want %v", c.text, got, c.ids)
		}
	}
	if got := l.Encode("", true); !slices.Equal(got, []int32{1}) {
		t.Errorf("Llama empty = %v", got)
	}
}

func TestDecodeOptions(t *testing.T) {
	g := loadGPT2(t)
	ids := g.Encode("He said , \"it 's fine\" .<|endoftext|>")
	if got := g.Decode(ids, DecodeOptions{}); got != "He said , \"it 's fine\" .<|endoftext|>" {
		t.Errorf("plain decode %q", got)
	}
	if got := g.Decode(ids, DecodeOptions{SkipSpecial: true, CleanUpSpaces: true}); got != "He said, \"it's fine\"." {
		t.Errorf("clean decode %q", got)
	}
	// ids outside the tokenizer (GPT-J logits rows 50257..50399) vanish
	if got := g.Decode([]int32{15496, 50300, 995, -1}, DecodeOptions{}); got != "Hello world" {
		t.Errorf("out-of-vocab decode %q", got)
	}
	// a lone continuation byte and a truncated sequence: one U+FFFD each
	// (Python's "replace"); "Ġ" is byte 0x20
	e2 := g.byteID[0xE2]
	x82 := g.byteID[0x82]
	if got := g.Decode([]int32{e2, x82, 15496}, DecodeOptions{}); got != "\uFFFDHello" {
		t.Errorf("truncated UTF-8 decode %q", got)
	}

	l := loadLlama(t)
	ids = l.Encode("Hello world", true)
	ids = append(ids, LlamaEOSID)
	if got := l.Decode(ids, DecodeOptions{SkipSpecial: true}); got != "Hello world" {
		t.Errorf("llama skip %q", got)
	}
	if got := l.Decode(ids, DecodeOptions{}); got != "<s> Hello world</s>" {
		t.Errorf("llama keep %q", got)
	}
	if got := l.Decode([]int32{LlamaSpaceID, 15043}, DecodeOptions{SkipSpecial: true}); got != " Hello" {
		t.Errorf("llama leading ▁ %q", got)
	}
}

func TestRoundTripRealText(t *testing.T) {
	g := loadGPT2(t)
	l := loadLlama(t)
	b, err := os.ReadFile("testdata/article.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	ids := g.Encode(text)
	if got := g.Decode(ids, DecodeOptions{}); got != text {
		t.Error("GPT-2 round trip of the article differs")
	}
	if len(ids) < 200 {
		t.Errorf("article encodes to only %d GPT-2 tokens", len(ids))
	}
	lids := l.Encode(text, true)
	if got := l.Decode(lids, DecodeOptions{SkipSpecial: true}); got != text {
		t.Error("Llama round trip of the article differs")
	}
}

func TestDecodeUTF8Replace(t *testing.T) {
	cases := []struct{ in, want string }{
		{"abc", "abc"},
		{"\xff", "\uFFFD"},
		{"\xe2\x82", "\uFFFD"},                 // truncated 3-byte: one
		{"\xe2\x82\xac", "€"},                  // complete
		{"\xe2\x28\xa1", "\uFFFD(\uFFFD"},      // bad second byte
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate: E0..9F only after ED
		{"\xf0\x9f\xa6", "\uFFFD"},
		{"\xf0\x9f\xa6\x99x", "🦙x"},
		{"\xc0\xaf", "\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	}
	for _, c := range cases {
		if got := DecodeUTF8Replace([]byte(c.in)); got != c.want {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPrompts(t *testing.T) {
	p := FormatGPTJPrompt(GPTJInstruction, "An article.")
	want := "Below is an instruction that describes a task, paired with an input that provides further context. Write a response that appropriately completes the request.\n\n### Instruction:\nSummarize the following news article:\n\n### Input:\nAn article.\n\n### Response:"
	if p != want {
		t.Fatalf("prompt %q", p)
	}
	g := loadGPT2(t)
	short := EncodeGPTJPrompt(g, "A short article.")
	if len(short) > GPTJMaxInputTokens || !slices.Equal(short, g.Encode(FormatGPTJPrompt(GPTJInstruction, "A short article."))) {
		t.Fatalf("short prompt %d tokens", len(short))
	}
	// "### Response:" ends the prompt: 21017 (###), 18261 (ĠResponse), 25 (:)
	if !slices.Equal(short[len(short)-3:], []int32{21017, 18261, 25}) {
		t.Errorf("prompt tail %v", short[len(short)-3:])
	}
	long := EncodeGPTJPrompt(g, strings.Repeat("word ", 3000))
	if len(long) != GPTJMaxInputTokens {
		t.Fatalf("long prompt %d tokens, want %d", len(long), GPTJMaxInputTokens)
	}
	full := g.Encode(FormatGPTJPrompt(GPTJInstruction, strings.Repeat("word ", 3000)))
	if !slices.Equal(long, full[:GPTJMaxInputTokens]) {
		t.Error("truncation is not a right cut")
	}
	if got := FormatLlama2Prompt("", "Q?"); got != "<s>[INST] Q? [/INST]" {
		t.Errorf("llama prompt %q", got)
	}
	if got := FormatLlama2Prompt("Be brief.", "Q?"); got != "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nQ? [/INST]" {
		t.Errorf("llama system prompt %q", got)
	}
}

func TestCheckModelVocab(t *testing.T) {
	g := loadGPT2(t)
	if err := CheckModelVocab(g, 50400); err != nil {
		t.Errorf("GPT-J 50400: %v", err)
	}
	if err := CheckModelVocab(g, 32000); err == nil {
		t.Error("GPT-2 tokenizer accepted for a 32000-row model")
	}
	l := loadLlama(t)
	if err := CheckModelVocab(l, 32000); err != nil {
		t.Errorf("Llama 32000: %v", err)
	}
	if err := CheckModelVocab(l, 50400); err == nil {
		t.Error("Llama tokenizer accepted for a 50400-row model")
	}
}

func FuzzGPT2RoundTrip(f *testing.F) {
	for _, s := range []string{"Hello world", "  a\n\n b", "'s'll", "🦙 ok", "\xff\xfe"} {
		f.Add(s)
	}
	tok := loadGPT2(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if got := tok.Decode(ids, DecodeOptions{}); got != DecodeUTF8Replace([]byte(s)) {
			t.Fatalf("round trip %q → %q", s, got)
		}
	})
}

func FuzzLlamaRoundTrip(f *testing.F) {
	for _, s := range []string{"Hello world", "  a\n\n b", "镇🦙", "\xff"} {
		f.Add(s)
	}
	tok := loadLlama(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s, true)
		if strings.Contains(s, spaceSymbol) {
			return // "▁" in the text encodes as a space
		}
		got := tok.Decode(ids, DecodeOptions{SkipSpecial: true})
		if want := DecodeUTF8Replace([]byte(s)); got != want {
			t.Fatalf("round trip %q → %q", s, got)
		}
	})
}

func BenchmarkGPT2EncodeArticle(b *testing.B) {
	tok := loadGPT2(b)
	text, _ := os.ReadFile("testdata/article.txt")
	for b.Loop() {
		tok.Encode(string(text))
	}
}

func BenchmarkLlamaEncodeArticle(b *testing.B) {
	tok := loadLlama(b)
	text, _ := os.ReadFile("testdata/article.txt")
	for b.Loop() {
		tok.Encode(string(text), true)
	}
}

type vocabOf int

func (v vocabOf) VocabSize() int { return int(v) }

// A wrong model is named by the benchmark it looks like, not blamed on the
// tokenizer.
func TestCheckModelVocabNamesTheBenchmark(t *testing.T) {
	err := CheckModelVocab(vocabOf(50257), 32000)
	if err == nil || !strings.Contains(err.Error(), "Llama 2") || !strings.Contains(err.Error(), "GPT-J") || !strings.Contains(err.Error(), "not this benchmark's") {
		t.Fatalf("err = %v", err)
	}
	if err := CheckModelVocab(vocabOf(50257), 50400); err != nil {
		t.Fatalf("GPT-J's padded embedding refused: %v", err)
	}
}
