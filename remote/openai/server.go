package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Generator is a decoder served over /v1/completions.
type Generator interface {
	// Generate decodes greedily from the prompt text, at most maxTokens
	// tokens, calling emit with the text of each generated token as it
	// reads inside the completion (" world") as soon as it is known, on
	// Generate's goroutine. It returns the token counts and why it
	// stopped. Cancelling ctx stops the emits; it is safe for concurrent
	// use.
	Generate(ctx context.Context, prompt string, maxTokens int, emit func(text string)) (Usage, error)
}

// Usage is a completion's token counts and end.
type Usage struct {
	PromptTokens, CompletionTokens int
	// FinishReason is "stop" (end of sequence) or "length" (max_tokens).
	FinishReason string
}

// Handler serves one model's /v1/completions (streamed as server-sent
// events or not) and /v1/models, as OpenAI's legacy completions API
// (https://platform.openai.com/docs/api-reference/completions): the part
// of it a greedy benchmark needs. Requests asking for sampling
// (temperature > 0) are refused: the server decodes greedily only.
//
// Every request is bounded: a body of at most MaxRequestBody bytes (a
// larger Content-Length is answered 413 before reading) and max_tokens of
// at most MaxTokens.
type Handler struct {
	// MaxTokens is the most max_tokens a request may ask for (0:
	// DefaultMaxTokensCap): a generator keeps room for that many tokens
	// per request.
	MaxTokens int

	model string
	gen   Generator
	seq   atomic.Uint64
}

// MaxRequestBody bounds a completion request's body, in bytes: a prompt
// of the suite's decoders (at most 4096 tokens) is tens of kB.
const MaxRequestBody = 1 << 20

// DefaultMaxTokensCap is Handler.MaxTokens when unset: Llama 2's context
// length.
const DefaultMaxTokensCap = 4096

// NewHandler serves gen as model.
func NewHandler(model string, gen Generator) *Handler { return &Handler{model: model, gen: gen} }

// completionRequest is the part of a completions request the handler
// reads.
type completionRequest struct {
	Model         string          `json:"model"`
	Prompt        json.RawMessage `json:"prompt"`
	MaxTokens     *int            `json:"max_tokens"`
	Temperature   *float64        `json:"temperature"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type choice struct {
	Text         string  `json:"text"`
	Index        int     `json:"index"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

type usageJSON struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type completion struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []choice   `json:"choices"`
	Usage   *usageJSON `json:"usage,omitempty"`
}

// defaultMaxTokens is OpenAI's max_tokens default.
const defaultMaxTokens = 16

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"object": "list",
			"data": []map[string]any{{"id": h.model, "object": "model", "owned_by": "mlperf"}}})
	case "/v1/completions":
		if r.Method != http.MethodPost {
			apiError(w, http.StatusMethodNotAllowed, "POST a completion request")
			return
		}
		h.complete(w, r)
	default:
		apiError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path+" (this server has /v1/completions and /v1/models)")
	}
}

func (h *Handler) complete(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > MaxRequestBody {
		w.Header().Set("Connection", "close")
		apiError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request's %d bytes exceed this server's limit of %d", r.ContentLength, MaxRequestBody))
		return
	}
	var req completionRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxRequestBody)).Decode(&req); err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			apiError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request's body runs past this server's limit of %d bytes", MaxRequestBody))
			return
		}
		apiError(w, http.StatusBadRequest, "the body is not a completion request: "+err.Error())
		return
	}
	if req.Model != h.model {
		apiError(w, http.StatusNotFound, fmt.Sprintf("model %q is not served here (this server has %q)", req.Model, h.model))
		return
	}
	var prompt string
	if err := json.Unmarshal(req.Prompt, &prompt); err != nil {
		var one []string
		if json.Unmarshal(req.Prompt, &one) != nil || len(one) != 1 {
			apiError(w, http.StatusBadRequest, "prompt must be a string (or an array of one string)")
			return
		}
		prompt = one[0]
	}
	maxTokens := defaultMaxTokens
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	limit := h.MaxTokens
	if limit <= 0 {
		limit = DefaultMaxTokensCap
	}
	if maxTokens < 1 || maxTokens > limit {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("max_tokens %d: want 1 to %d", maxTokens, limit))
		return
	}
	if req.Temperature != nil && *req.Temperature != 0 {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("temperature %g: this server decodes greedily only (temperature 0)", *req.Temperature))
		return
	}
	head := completion{ID: fmt.Sprintf("cmpl-%d", h.seq.Add(1)), Object: "text_completion", Created: time.Now().Unix(), Model: h.model}
	if !req.Stream {
		var text strings.Builder
		u, err := h.gen.Generate(r.Context(), prompt, maxTokens, func(s string) { text.WriteString(s) })
		if err != nil {
			apiError(w, http.StatusInternalServerError, err.Error())
			return
		}
		head.Choices = []choice{{Text: text.String(), FinishReason: &u.FinishReason}}
		head.Usage = &usageJSON{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens}
		writeJSON(w, http.StatusOK, head)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f != nil {
			f.Flush()
		}
	}
	u, err := h.gen.Generate(r.Context(), prompt, maxTokens, func(s string) {
		c := head
		c.Choices = []choice{{Text: s}}
		event(c)
	})
	if err != nil {
		// The status is sent: the error goes in the stream, and no [DONE].
		event(map[string]any{"error": map[string]string{"message": err.Error(), "type": "server_error"}})
		return
	}
	last := head
	last.Choices = []choice{{FinishReason: &u.FinishReason}}
	event(last)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		c := head
		c.Choices = []choice{}
		c.Usage = &usageJSON{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens}
		event(c)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if f != nil {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// apiError writes an error as OpenAI's API does.
func apiError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": code}})
}
