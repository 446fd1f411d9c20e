package tokenizer

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Whisper's vocabulary (openai/whisper whisper/tokenizer.py get_encoding):
// 50,257 byte-level BPE tokens of multilingual.tiktoken, then the special
// tokens in this order: <|endoftext|>, <|startoftranscript|>, one
// <|lang|> per language, <|translate|>, <|transcribe|>, <|startoflm|>,
// <|startofprev|>, <|nospeech|>, <|notimestamps|> and 1,501 timestamps
// <|0.00|> … <|30.00|>. large-v3 has 100 languages (Cantonese added), so
// 51,866 ids.
const (
	// WhisperBaseTokens is the number of byte-level tokens of
	// multilingual.tiktoken.
	WhisperBaseTokens = 50257
	// WhisperLanguagesV3 is the language count of large-v3.
	WhisperLanguagesV3 = 100
	// WhisperTiktokenFile is the vocabulary's file name in a model folder.
	WhisperTiktokenFile = "multilingual.tiktoken"
)

// Whisper special token names.
const (
	WhisperEndOfText    = "<|endoftext|>"
	WhisperStartOfTrans = "<|startoftranscript|>"
	WhisperTranslate    = "<|translate|>"
	WhisperTranscribe   = "<|transcribe|>"
	WhisperNoTimestamps = "<|notimestamps|>"
)

// WhisperLanguages are whisper/tokenizer.py's LANGUAGES codes in order.
var WhisperLanguages = strings.Fields(`en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi
	he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is
	hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa
	lb my bo tl mg as tt haw ln ha ba jw su yue`)

// ErrWhisperVocab reports a vocabulary file that is not Whisper's
// multilingual vocabulary.
var ErrWhisperVocab = errors.New("tokenizer: not Whisper's multilingual vocabulary")

// Whisper decodes token ids of the Whisper models. It is immutable and
// safe for concurrent use.
type Whisper struct {
	bytesOf  [][]byte // the WhisperBaseTokens byte-level tokens
	specials []string // names of ids WhisperBaseTokens…
	byName   map[string]int32
}

// LoadWhisper reads the vocabulary from a model folder: multilingual.tiktoken
// (openai/whisper's file), else a Hugging Face vocab.json (the byte-level
// vocabulary of a transformers or optimum export), with large-v3's
// special tokens.
func LoadWhisper(dir string) (*Whisper, error) {
	tk := filepath.Join(dir, WhisperTiktokenFile)
	f, err := os.Open(tk)
	if err == nil {
		defer f.Close()
		t, err := NewWhisperTiktoken(f, WhisperLanguagesV3)
		if err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, tk)
		}
		return t, nil
	}
	vj := filepath.Join(dir, "vocab.json")
	g, err2 := os.Open(vj)
	if err2 != nil {
		return nil, fmt.Errorf("tokenizer: no Whisper vocabulary in %s: %w; and %w (put openai/whisper's whisper/assets/multilingual.tiktoken or the model's vocab.json there)", dir, err, err2)
	}
	defer g.Close()
	t, err := NewWhisperVocabJSON(g, WhisperLanguagesV3)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, vj)
	}
	return t, nil
}

// NewWhisperTiktoken reads a tiktoken vocabulary ("base64-token rank" per
// line, ranks 0…50256 each once; Python's lenient base64, so "=" is the
// empty token that multilingual.tiktoken has at 50256) and adds the
// special tokens of a model with the given number of languages.
func NewWhisperTiktoken(r io.Reader, languages int) (*Whisper, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<16)
	t := &Whisper{bytesOf: make([][]byte, WhisperBaseTokens)}
	seen := make([]bool, WhisperBaseTokens)
	lines := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		lines++
		tok, rank, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("%w: line %d %q is not \"token rank\"", ErrWhisperVocab, lines, clip(line))
		}
		id, err := strconv.Atoi(strings.TrimSpace(rank))
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%w: line %d: rank %q is not a non-negative integer", ErrWhisperVocab, lines, clip(rank))
		}
		if id >= WhisperBaseTokens {
			return nil, fmt.Errorf("%w: line %d: rank %d, but Whisper's multilingual vocabulary has %d tokens (ranks 0 to %d)", ErrWhisperVocab, lines, id, WhisperBaseTokens, WhisperBaseTokens-1)
		}
		if seen[id] {
			return nil, fmt.Errorf("%w: line %d: rank %d given twice", ErrWhisperVocab, lines, id)
		}
		b, err := pyB64(tok)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: token %q: %v", ErrWhisperVocab, lines, clip(tok), err)
		}
		seen[id] = true
		t.bytesOf[id] = b
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWhisperVocab, err)
	}
	if lines != WhisperBaseTokens {
		hint := ""
		if lines == WhisperBaseTokens-1 {
			hint = " (50,256 is gpt2.tiktoken, the English-only models' vocabulary; large-v3 needs multilingual.tiktoken)"
		}
		return nil, fmt.Errorf("%w: %d tokens, want %d%s", ErrWhisperVocab, lines, WhisperBaseTokens, hint)
	}
	return t.withSpecials(languages)
}

// pyB64 is Python's base64.b64decode without validation: characters
// outside the alphabet are dropped and padding is not required.
func pyB64(s string) ([]byte, error) {
	var clean []byte
	for i := range len(s) {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
			clean = append(clean, c)
		}
	}
	if len(clean)%4 == 1 {
		return nil, fmt.Errorf("invalid base64: %d data characters", len(clean))
	}
	return base64.RawStdEncoding.DecodeString(string(clean))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// NewWhisperVocabJSON reads a Hugging Face vocab.json (token string → id,
// tokens in GPT-2's byte-to-character form): ids below 50,257 are the
// byte-level tokens, ids above are special tokens and must be the
// special tokens of a model with the given number of languages.
func NewWhisperVocabJSON(r io.Reader, languages int) (*Whisper, error) {
	var vocab map[string]int32
	if err := json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&vocab); err != nil {
		return nil, fmt.Errorf("%w: vocab.json: %v", ErrWhisperVocab, err)
	}
	runeByte := map[rune]byte{}
	for b, r := range byteToRune() {
		runeByte[r] = byte(b)
	}
	t := &Whisper{bytesOf: make([][]byte, WhisperBaseTokens)}
	base := 0
	var specials []string
	for tok, id := range vocab {
		if id < 0 {
			return nil, fmt.Errorf("%w: vocab.json: %q has id %d", ErrWhisperVocab, clip(tok), id)
		}
		if id >= WhisperBaseTokens {
			specials = append(specials, tok)
			continue
		}
		var b []byte
		for _, r := range tok {
			c, ok := runeByte[r]
			if !ok {
				return nil, fmt.Errorf("%w: vocab.json: token %q (id %d) is not in GPT-2's byte-level form", ErrWhisperVocab, clip(tok), id)
			}
			b = append(b, c)
		}
		if t.bytesOf[id] != nil {
			return nil, fmt.Errorf("%w: vocab.json: id %d given twice", ErrWhisperVocab, id)
		}
		t.bytesOf[id] = b
		base++
	}
	// multilingual.tiktoken's rank 50256 is the empty token, which a
	// byte-level vocab.json cannot spell: it may be missing.
	if base < WhisperBaseTokens-1 {
		return nil, fmt.Errorf("%w: vocab.json has %d byte-level tokens, want %d", ErrWhisperVocab, base, WhisperBaseTokens)
	}
	w, err := t.withSpecials(languages)
	if err != nil {
		return nil, err
	}
	for _, s := range specials {
		id, ok := w.byName[s]
		if !ok {
			return nil, fmt.Errorf("%w: vocab.json has %q at %d, which is not a special token of a %d-language Whisper", ErrWhisperVocab, clip(s), vocab[s], languages)
		}
		if vocab[s] != id {
			return nil, fmt.Errorf("%w: vocab.json has %q at %d, a %d-language Whisper has it at %d", ErrWhisperVocab, clip(s), vocab[s], languages, id)
		}
	}
	return w, nil
}

func (t *Whisper) withSpecials(languages int) (*Whisper, error) {
	if languages < 1 || languages > len(WhisperLanguages) {
		return nil, fmt.Errorf("tokenizer: %d Whisper languages, want 1 to %d", languages, len(WhisperLanguages))
	}
	s := []string{WhisperEndOfText, WhisperStartOfTrans}
	for _, l := range WhisperLanguages[:languages] {
		s = append(s, "<|"+l+"|>")
	}
	s = append(s, WhisperTranslate, WhisperTranscribe, "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", WhisperNoTimestamps)
	for i := range 1501 {
		s = append(s, fmt.Sprintf("<|%.2f|>", float64(i)*0.02))
	}
	t.specials = s
	t.byName = make(map[string]int32, len(s))
	for i, n := range s {
		t.byName[n] = int32(WhisperBaseTokens + i)
	}
	return t, nil
}

// VocabSize is the number of ids: 51,866 for large-v3.
func (t *Whisper) VocabSize() int { return WhisperBaseTokens + len(t.specials) }

// Special returns the id of a special token such as "<|en|>".
func (t *Whisper) Special(name string) (int32, bool) {
	id, ok := t.byName[name]
	return id, ok
}

// EOT is the id of <|endoftext|>, where decoding stops (50257).
func (t *Whisper) EOT() int32 { return t.byName[WhisperEndOfText] }

// TranscribePrompt is the decoder prompt of transcription without
// timestamps in language lang: <|startoftranscript|><|lang|><|transcribe|>
// <|notimestamps|> (the MLPerf reference's prompt for "en").
func (t *Whisper) TranscribePrompt(lang string) ([]int32, error) {
	l, ok := t.byName["<|"+lang+"|>"]
	if !ok {
		return nil, fmt.Errorf("tokenizer: Whisper has no language %q", lang)
	}
	return []int32{t.byName[WhisperStartOfTrans], l, t.byName[WhisperTranscribe], t.byName[WhisperNoTimestamps]}, nil
}

// Decode returns the text of ids: the byte-level tokens' bytes joined and
// decoded as UTF-8 as Python's bytes.decode("utf-8", "replace") does
// (tiktoken's decode). Special tokens are dropped (skip_special_tokens,
// as vLLM returns text) or, with keepSpecial, written by name. An id
// outside the vocabulary is an error.
func (t *Whisper) Decode(ids []int32, keepSpecial bool) (string, error) {
	var b []byte
	for i, id := range ids {
		switch {
		case id >= 0 && id < WhisperBaseTokens:
			b = append(b, t.bytesOf[id]...)
		case id >= WhisperBaseTokens && int(id) < t.VocabSize():
			if keepSpecial {
				b = append(b, t.specials[id-WhisperBaseTokens]...)
			}
		default:
			return "", fmt.Errorf("tokenizer: id %d (position %d) is outside Whisper's vocabulary [0, %d)", id, i, t.VocabSize())
		}
	}
	return DecodeUTF8Replace(b), nil
}
