package tokenizer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTiktoken writes n tokens: rank i is the bytes of "t<i>" except a few
// chosen ones (a UTF-8 prefix split over two tokens, an invalid byte, the
// empty token at 50256 as multilingual.tiktoken has it).
func fakeTiktoken(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		tok := []byte(fmt.Sprintf("t%d", i))
		switch i {
		case 10:
			tok = []byte{0xe4, 0xbd} // first two bytes of 你
		case 11:
			tok = []byte{0xa0} // its last byte
		case 12:
			tok = []byte{0xff}
		case 13:
			tok = []byte(" Hello")
		case 50256:
			tok = nil
		}
		enc := base64.StdEncoding.EncodeToString(tok)
		if tok == nil {
			enc = "=" // as in multilingual.tiktoken
		}
		fmt.Fprintf(&b, "%s %d\n", enc, i)
	}
	return b.Bytes()
}

// TestWhisperSpecialIDs: large-v3's special tokens sit where
// whisper/tokenizer.py puts them for 100 languages (51,866 ids).
func TestWhisperSpecialIDs(t *testing.T) {
	w, err := NewWhisperTiktoken(bytes.NewReader(fakeTiktoken(WhisperBaseTokens)), WhisperLanguagesV3)
	if err != nil {
		t.Fatal(err)
	}
	if w.VocabSize() != 51866 {
		t.Errorf("vocabulary %d, want 51866", w.VocabSize())
	}
	for name, want := range map[string]int32{
		"<|endoftext|>": 50257, "<|startoftranscript|>": 50258, "<|en|>": 50259, "<|zh|>": 50260,
		"<|yue|>": 50358, "<|translate|>": 50359, "<|transcribe|>": 50360, "<|startoflm|>": 50361,
		"<|startofprev|>": 50362, "<|nospeech|>": 50363, "<|notimestamps|>": 50364,
		"<|0.00|>": 50365, "<|0.02|>": 50366, "<|0.06|>": 50368, "<|30.00|>": 51865,
	} {
		if got, ok := w.Special(name); !ok || got != want {
			t.Errorf("%s = %d (%v), want %d", name, got, ok, want)
		}
	}
	p, err := w.TranscribePrompt("en")
	if err != nil || fmt.Sprint(p) != "[50258 50259 50360 50364]" {
		t.Errorf("English transcription prompt %v %v", p, err)
	}
	if _, err := w.TranscribePrompt("xx"); err == nil {
		t.Error("language xx accepted")
	}
	// large-v2's 99 languages: no <|yue|>, everything after shifts down.
	v2, err := NewWhisperTiktoken(bytes.NewReader(fakeTiktoken(WhisperBaseTokens)), 99)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := v2.Special(WhisperNoTimestamps); id != 50363 || v2.VocabSize() != 51865 {
		t.Errorf("99 languages: notimestamps %d, vocabulary %d", id, v2.VocabSize())
	}
}

// TestWhisperDecode: bytes joined across tokens, then Python's
// decode("utf-8", "replace"); specials dropped or named; the empty token
// decodes to nothing; ids outside the vocabulary are errors.
func TestWhisperDecode(t *testing.T) {
	w, err := NewWhisperTiktoken(bytes.NewReader(fakeTiktoken(WhisperBaseTokens)), WhisperLanguagesV3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ids  []int32
		keep bool
		want string
	}{
		{[]int32{13, 10, 11, 7}, false, " Hello你t7"},
		{[]int32{10, 7}, false, "\ufffdt7"},      // a truncated sequence is one U+FFFD
		{[]int32{12, 12}, false, "\ufffd\ufffd"}, // each invalid byte is one
		{[]int32{50258, 50259, 50360, 50364, 13, 50256, 50257}, false, " Hello"},
		{[]int32{50258, 13, 50257}, true, "<|startoftranscript|> Hello<|endoftext|>"},
		{[]int32{51865}, true, "<|30.00|>"},
		{nil, false, ""},
	} {
		got, err := w.Decode(c.ids, c.keep)
		if err != nil || got != c.want {
			t.Errorf("Decode(%v, %v) = %q, %v; want %q", c.ids, c.keep, got, err, c.want)
		}
	}
	for _, id := range []int32{-1, 51866} {
		if _, err := w.Decode([]int32{13, id}, false); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("id %d: %v", id, err)
		}
	}
}

// TestWhisperWrongVocabularyFile: a file of the wrong size (gpt2.tiktoken's
// 50,256 tokens, one too many), a repeated or out-of-range rank, and
// garbage are clear errors.
func TestWhisperWrongVocabularyFile(t *testing.T) {
	good := fakeTiktoken(WhisperBaseTokens)
	lines := bytes.SplitAfter(good, []byte("\n"))
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"gpt2 size":    {fakeTiktoken(WhisperBaseTokens - 1), "gpt2.tiktoken"},
		"one too many": {append(bytes.Clone(good), "dA== 50257\n"...), "rank 50257"},
		"repeated":     {append(bytes.Join(lines[:100], nil), append([]byte("dA== 5\n"), bytes.Join(lines[101:], nil)...)...), "rank 5 given twice"},
		"not a vocab":  {[]byte("<html>\n"), "not \"token rank\""},
		"bad rank":     {[]byte("dA== x\n"), "not a non-negative integer"},
		"empty":        {nil, "0 tokens"},
	} {
		_, err := NewWhisperTiktoken(bytes.NewReader(c.data), WhisperLanguagesV3)
		if !errors.Is(err, ErrWhisperVocab) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrWhisperVocab mentioning %q", name, err, c.want)
		}
	}
}

// TestLoadWhisperFromModelFolder: multilingual.tiktoken first, else
// vocab.json in GPT-2's byte-level form (which cannot spell the empty
// token); a folder with neither names both files.
func TestLoadWhisperFromModelFolder(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadWhisper(dir); err == nil || !strings.Contains(err.Error(), "multilingual.tiktoken") || !strings.Contains(err.Error(), "vocab.json") {
		t.Errorf("empty folder: %v", err)
	}
	// vocab.json of the same tokens
	ref, err := NewWhisperTiktoken(bytes.NewReader(fakeTiktoken(WhisperBaseTokens)), WhisperLanguagesV3)
	if err != nil {
		t.Fatal(err)
	}
	tab := byteToRune()
	vocab := map[string]int32{}
	for id, b := range ref.bytesOf[:WhisperBaseTokens-1] {
		var sb strings.Builder
		for _, c := range b {
			sb.WriteRune(tab[c])
		}
		vocab[sb.String()] = int32(id)
	}
	vocab["<|endoftext|>"] = 50257
	vj, _ := json.Marshal(vocab)
	if err := os.WriteFile(filepath.Join(dir, "vocab.json"), vj, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := LoadWhisper(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int32{13, 10, 11, 7, 50256, 50257}
	a, _ := ref.Decode(ids, false)
	b, _ := w.Decode(ids, false)
	if a != b {
		t.Errorf("vocab.json decodes %q, tiktoken %q", b, a)
	}
	vocab["<|endoftext|>"] = 50258
	vj, _ = json.Marshal(vocab)
	os.WriteFile(filepath.Join(dir, "vocab.json"), vj, 0o644)
	if _, err := LoadWhisper(dir); !errors.Is(err, ErrWhisperVocab) {
		t.Errorf("endoftext at 50258: %v", err)
	}
	// multilingual.tiktoken wins, and its errors name it.
	os.WriteFile(filepath.Join(dir, WhisperTiktokenFile), fakeTiktoken(100), 0o644)
	if _, err := LoadWhisper(dir); err == nil || !strings.Contains(err.Error(), WhisperTiktokenFile) || !strings.Contains(err.Error(), "100 tokens") {
		t.Errorf("short tiktoken: %v", err)
	}
}
