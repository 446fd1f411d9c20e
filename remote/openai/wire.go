package openai

// The requests the client sends and the streamed events it reads, for
// each API. Request bodies are appended by hand: the prompt's ids are
// most of a request, and strconv over a slice is several times cheaper
// than encoding/json's reflection on the send path.

import (
	"encoding/json"
	"fmt"
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

// Sampling are the sampling settings of every request, as a benchmark's
// reference sends them. The zero Config's nil *Sampling is greedy:
// temperature 0 and top_p 1.
type Sampling struct {
	// Temperature and TopP are sent as temperature and top_p.
	Temperature, TopP float64
	// TopK, if set, is sent as top_k (-1: no top-k cut, as vLLM and
	// SGLang read it).
	TopK *int
	// Seed, if set, is sent as seed to /v1/completions and
	// /v1/chat/completions (SGLang's /generate has no seed in the
	// reference's requests; its sampling_params go without it).
	Seed *int64
}

// check refuses settings no engine takes.
func (s *Sampling) check() error {
	if s == nil {
		return nil
	}
	if !(s.Temperature >= 0 && s.Temperature <= 100) {
		return fmt.Errorf("openai: temperature %v: want 0 to 100", s.Temperature)
	}
	if !(s.TopP > 0 && s.TopP <= 1) {
		return fmt.Errorf("openai: top_p %v: want above 0 and at most 1", s.TopP)
	}
	if s.TopK != nil && (*s.TopK < -1 || *s.TopK == 0) {
		return fmt.Errorf("openai: top_k %d: want -1 (no cut) or at least 1", *s.TopK)
	}
	return nil
}

// appendSampling appends s's fields after a comma: temperature, top_p,
// then top_k and (with seed) the seed where set.
func appendSampling(b []byte, s *Sampling, seed bool) []byte {
	if s == nil {
		return append(b, `,"temperature":0,"top_p":1`...)
	}
	b = append(b, `,"temperature":`...)
	b = strconv.AppendFloat(b, s.Temperature, 'g', -1, 64)
	b = append(b, `,"top_p":`...)
	b = strconv.AppendFloat(b, s.TopP, 'g', -1, 64)
	if s.TopK != nil {
		b = append(b, `,"top_k":`...)
		b = strconv.AppendInt(b, int64(*s.TopK), 10)
	}
	if seed && s.Seed != nil {
		b = append(b, `,"seed":`...)
		b = strconv.AppendInt(b, *s.Seed, 10)
	}
	return b
}

// completionBody is a streamed /v1/completions request: prompt as ids
// (then asking for the generated ids too, vLLM's return_token_ids) or as
// text, the sampling settings (nil: greedy), and the usage chunk at the
// end (stream_options.include_usage, the server's count of generated
// tokens).
func completionBody(model string, p Prompt, ids bool, maxTokens int, s *Sampling) []byte {
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
	b = appendSampling(b, s, true)
	b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	if ids {
		b = append(b, `,"return_token_ids":true`...)
	}
	return append(b, '}')
}

// chatBody is a streamed /v1/chat/completions request with the prompt
// text as the one user message and the sampling settings (nil: greedy).
func chatBody(model string, p Prompt, maxTokens int, s *Sampling) []byte {
	b := make([]byte, 0, 256+len(p.Text))
	b = append(b, `{"model":`...)
	b = appendString(b, model)
	b = append(b, `,"messages":[{"role":"user","content":`...)
	b = appendString(b, p.Text)
	b = append(b, `}],"max_tokens":`...)
	b = strconv.AppendInt(b, int64(maxTokens), 10)
	b = appendSampling(b, s, true)
	return append(b, `,"stream":true,"stream_options":{"include_usage":true}}`...)
}

// sglangBody is a streamed SGLang /generate request with the sampling
// settings (nil: greedy) in sampling_params.
func sglangBody(p Prompt, ids bool, maxTokens int, s *Sampling) []byte {
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
	b = appendSampling(b, s, false)
	return append(b, `},"stream":true}`...)
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
