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
	}}}
	ep := newEndpoint("http://fuzz", Completions)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		textLen = 0
		rec := newRecorder(1)
		st := stream{s: s, ep: ep, url: ep.url, j: job{s: loadgen.Sample{ID: 1}, c: rec}, usage: -1}
		ids, err := st.read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(ids) == 0 {
			t.Fatal("accepted an empty completion")
		}
		if textLen > 8*MaxTokenBytes+4096 {
			t.Fatalf("accepted %d bytes of text for max_tokens 8", textLen)
		}
		if st.withIDs && len(ids) > 8 {
			t.Fatalf("accepted %d server ids for max_tokens 8", len(ids))
		}
	})
}

// FuzzSGLangStream feeds arbitrary bytes (up to 1 MiB) to the /generate
// stream reader with max_tokens 8 and a vocabulary of 100: it must never
// panic, and what it accepts holds 1 to 8 ids, each inside the
// vocabulary. Run with `go test -run '^$' -fuzz FuzzSGLangStream
// ./remote/openai`.
func FuzzSGLangStream(f *testing.F) {
	f.Add([]byte("data: {\"text\":\"a\",\"output_ids\":[5],\"meta_info\":{\"completion_tokens\":1}}\n\ndata: {\"text\":\"ab\",\"output_ids\":[5,6],\"meta_info\":{\"completion_tokens\":2,\"finish_reason\":{\"type\":\"length\"}}}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"output_ids\":[5],\"meta_info\":{\"completion_tokens\":1}}\n\ndata: {\"output_ids\":[6],\"meta_info\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"output_ids\":[500],\"meta_info\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"x\"}}\n\n"))
	s := &SUT{cfg: Config{API: SGLang, MaxTokens: 8, Vocab: 100, Encode: words}}
	ep := newEndpoint("http://fuzz", SGLang)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		rec := newRecorder(1)
		st := stream{s: s, ep: ep, url: ep.url, j: job{s: loadgen.Sample{ID: 1}, c: rec}, usage: -1}
		ids, err := st.read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(ids) == 0 || len(ids) > 8 {
			t.Fatalf("accepted %d ids for max_tokens 8", len(ids))
		}
		for _, id := range ids {
			if id < 0 || id >= 100 {
				t.Fatalf("accepted id %d outside the vocabulary of 100", id)
			}
		}
	})
}
