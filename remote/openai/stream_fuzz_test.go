package openai

import (
	"bytes"
	"testing"

	"github.com/mlperf-go/inference/loadgen"
)

// FuzzSSEStream feeds arbitrary bytes (up to 1 MiB) to the completion
// stream reader with max_tokens 8: it must never panic, and what it
// accepts holds at most 8 server ids and at most 8 × MaxTokenBytes + 4096
// bytes of text. Run with
// `go test -run '^$' -fuzz FuzzSSEStream ./remote/openai`.
func FuzzSSEStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"text\":\" hi\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("event: x\n: comment\ndata: {\"choices\":[{\"text\":\"a\",\"token_ids\":[5,6]}]}\n\ndata: [DONE]\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"boom\"}}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"text\":\"a\",\"token_ids\":[1]},{\"text\":\"b\"}]}\n\ndata: [DONE]\n"))
	f.Add([]byte("data:{\"choices\":null}\r\ndata:[DONE]\r\n"))
	var textLen int
	s := &SUT{cfg: Config{MaxTokens: 8, Encode: func(text string) []int32 {
		textLen = len(text)
		return words(text)
	}}, url: "http://fuzz/v1/completions"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		textLen = 0
		rec := newRecorder(1)
		ids, err := s.readStream(bytes.NewReader(data), job{s: loadgen.Sample{ID: 1}, c: rec})
		if err != nil {
			return
		}
		if len(ids) == 0 {
			t.Fatal("accepted an empty completion")
		}
		if textLen > 8*MaxTokenBytes+4096 {
			t.Fatalf("accepted %d bytes of text for max_tokens 8", textLen)
		}
		if s.serverIDs.Load() && len(ids) > 8 {
			t.Fatalf("accepted %d server ids for max_tokens 8", len(ids))
		}
		s.serverIDs.Store(false)
	})
}
