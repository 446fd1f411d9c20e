package openai

// The requests the client sends and the streamed events it reads, for
// each API. Request bodies are appended by hand: the prompt's ids are
// most of a request, and strconv over a slice is several times cheaper
// than encoding/json's reflection on the send path.

import (
	"encoding/json"
	"strconv"
)

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// appendIDs appends ids as a JSON array.
func appendIDs(b []byte, ids []int32) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return append(b, ']')
}

// completionBody is a streamed greedy /v1/completions request: prompt as
// ids (then asking for the generated ids too, vLLM's return_token_ids) or
// as text, and the usage chunk at the end (stream_options.include_usage,
// the server's count of generated tokens).
func completionBody(model string, p Prompt, ids bool, maxTokens int) []byte {
	b := make([]byte, 0, 256+len(p.Text)+8*len(p.IDs))
	b = append(b, `{"model":`...)
	b = appendString(b, model)
	b = append(b, `,"prompt":`...)
	if ids {
		b = appendIDs(b, p.IDs)
	} else {
		b = appendString(b, p.Text)
	}
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(maxTokens), 10)
	b = append(b, `,"temperature":0,"top_p":1,"stream":true,"stream_options":{"include_usage":true}`...)
	if ids {
		b = append(b, `,"return_token_ids":true`...)
	}
	return append(b, '}')
}

// chatBody is a streamed greedy /v1/chat/completions request with the
// prompt text as the one user message.
func chatBody(model string, p Prompt, maxTokens int) []byte {
	b := make([]byte, 0, 256+len(p.Text))
	b = append(b, `{"model":`...)
	b = appendString(b, model)
	b = append(b, `,"messages":[{"role":"user","content":`...)
	b = appendString(b, p.Text)
	b = append(b, `}],"max_tokens":`...)
	b = strconv.AppendInt(b, int64(maxTokens), 10)
	b = append(b, `,"temperature":0,"top_p":1,"stream":true,"stream_options":{"include_usage":true}}`...)
	return b
}

// sglangBody is a streamed greedy SGLang /generate request.
func sglangBody(p Prompt, ids bool, maxTokens int) []byte {
	b := make([]byte, 0, 128+len(p.Text)+8*len(p.IDs))
	if ids {
		b = append(b, `{"input_ids":`...)
		b = appendIDs(b, p.IDs)
	} else {
		b = append(b, `{"text":`...)
		b = appendString(b, p.Text)
	}
	b = append(b, `,"sampling_params":{"max_new_tokens":`...)
	b = strconv.AppendInt(b, int64(maxTokens), 10)
	return append(b, `,"temperature":0,"top_p":1},"stream":true}`...)
}

// streamChunk is one streamed event of /v1/completions or /v1/chat/completions.
type streamChunk struct {
	Choices []streamChoice `json:"choices"`
	Usage   *struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	// Error is a mid-stream error as OpenAI writes it; Object "error"
	// with Message is vLLM's older form.
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Object  string `json:"object"`
	Message string `json:"message"`
}

// streamChoice is one choice of a chunk: Text (completions) or Delta.Content
// (chat), and the generated ids where the server gives them.
type streamChoice struct {
	Text  string `json:"text"`
	Delta *struct {
		Content string `json:"content"`
	} `json:"delta"`
	TokenIDs     []int32   `json:"token_ids"`
	Logprobs     *logprobs `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// logprobs carries the generated tokens of a chunk: Tokens (completions)
// or Content[].Token (chat), written "token_id:N" by a vLLM started with
// return_tokens_as_token_ids.
type logprobs struct {
	Tokens  []string `json:"tokens"`
	Content []struct {
		Token string `json:"token"`
	} `json:"content"`
}

// sglangChunk is one streamed event of SGLang's /generate: the text and
// output ids so far (cumulative; increments with
// --incremental-streaming-output) and meta_info's count of generated
// tokens.
type sglangChunk struct {
	OutputIDs []int32 `json:"output_ids"`
	MetaInfo  *struct {
		CompletionTokens int             `json:"completion_tokens"`
		FinishReason     json.RawMessage `json:"finish_reason"`
	} `json:"meta_info"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}
