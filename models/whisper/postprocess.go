package whisper

import (
	"fmt"

	"github.com/mlperf-go/inference/accuracy/wer"
	"github.com/mlperf-go/inference/llm/tokenizer"
)

// encodeResponse appends the response bytes of generated ids to dst, as
// the reference SUT returns them (reference_SUT.py): the ids decoded to
// text with special tokens skipped (vLLM's output text), lower-cased and
// stripped, each character of the 42-label alphabet as its little-endian
// int64 index (array.array('q')); other characters are dropped.
func encodeResponse(dst []byte, tok *tokenizer.Whisper, ids []int32) ([]byte, error) {
	text, err := tok.Decode(ids, false)
	if err != nil {
		return dst, fmt.Errorf("whisper: %w", err)
	}
	return wer.AppendInt64(dst, wer.EncodeTranscript(text)), nil
}
