package whisper

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/mlperf-go/inference/accuracy/wer"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

func realTokenizer(t testing.TB) *tokenizer.Whisper {
	t.Helper()
	v, err := vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.NewWhisperTiktoken(bytes.NewReader(v), tokenizer.WhisperLanguagesV3)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestEmbeddedVocabularyIsOpenAIs: the embedded file is openai/whisper's
// multilingual.tiktoken (by SHA-256) and gives large-v3's 51,866 ids.
func TestEmbeddedVocabularyIsOpenAIs(t *testing.T) {
	v, err := vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(v)
	if got := hex.EncodeToString(s[:]); got != vocabularySHA256 {
		t.Errorf("sha256 %s, want %s", got, vocabularySHA256)
	}
	if n := realTokenizer(t).VocabSize(); n != int(configs[sizeLargeV3].Vocab) {
		t.Errorf("vocabulary %d, large-v3 has %d", n, configs[sizeLargeV3].Vocab)
	}
}

// TestDecodeAndLabelsMatchReference: testdata/decode.json
// (gen_decode_golden.py: tiktoken's decode reproduced on the real ranks,
// the reference SUT's labels) for seeded id sequences, byte-level pieces
// that are not UTF-8 alone included; encodeResponse writes those labels
// as int64.
func TestDecodeAndLabelsMatchReference(t *testing.T) {
	b, err := os.ReadFile("testdata/decode.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		IDs    []int32
		Text   string
		Labels []int64
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	tok := realTokenizer(t)
	for _, c := range cases {
		got, err := tok.Decode(c.IDs, false)
		if err != nil || got != c.Text {
			t.Errorf("%v: %q (%v), want %q", c.IDs, got, err, c.Text)
			continue
		}
		data, err := encodeResponse(nil, tok, c.IDs)
		if err != nil || !bytes.Equal(data, wer.AppendInt64(nil, c.Labels)) {
			t.Errorf("%v: response %x, want labels %v", c.IDs, data, c.Labels)
		}
	}
	if _, err := encodeResponse(nil, tok, []int32{51866}); err == nil {
		t.Error("id 51866 accepted")
	}
	if p, err := defaultGeneration(tok); err != nil || !slices.Equal(p.Prompt, []int32{50258, 50259, 50360, 50364}) || p.EOT != 50257 || p.MaxNewTokens != 200 {
		t.Errorf("default generation %+v %v", p, err)
	}
}
