package whisper

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
)

// vocabGz is openai/whisper's whisper/assets/multilingual.tiktoken (MIT,
// see assets/LICENSE.openai-whisper), gzipped: the vocabulary a synthetic
// model folder gets, since no package registry ships it.
//
//go:embed assets/multilingual.tiktoken.gz
var vocabGz []byte

// vocabularySHA256 is the SHA-256 of openai/whisper's
// multilingual.tiktoken (commit c0d2f62).
const vocabularySHA256 = "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126"

// vocabulary returns multilingual.tiktoken.
func vocabulary() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(vocabGz))
	if err != nil {
		return nil, fmt.Errorf("whisper: embedded vocabulary: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("whisper: embedded vocabulary: %w", err)
	}
	return b, nil
}
