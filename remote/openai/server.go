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

// Generator is a decoder served over /v1/completions and
// /v1/chat/completions.
type Generator interface {
	// Generate decodes req greedily, at most req.MaxTokens tokens,
	// calling emit on Generate's goroutine with each generated token's id
	// as soon as it is known and the text that becomes readable with it
	// (" world"; "" for a special token or while a character's bytes are
	// incomplete); a last call with id −1 may carry text left over (the
	// bytes of a character the model never completed). It returns the
	// token counts and why it stopped; an
	// error wrapping ErrBadRequest says the request cannot be run (an id
	// outside the vocabulary, a prompt past the context). Cancelling ctx
	// stops the emits; it is safe for concurrent use.
	Generate(ctx context.Context, req Request, emit func(id int32, text string)) (Usage, error)
}

// Request is one generation request as a Generator gets it: a prompt
// text, a prompt of token ids, or chat messages.
type Request struct {
	// Prompt is a completion's prompt text (IDs and Messages unset).
	Prompt string
	// IDs, if set, is the prompt as token ids, run as given.
	IDs []int32
	// Messages, if set, is a chat, to which the generator applies its
	// model's chat template (with the assistant's turn opened).
	Messages []Message
	// MaxTokens is the most tokens to generate (≥ 1).
	MaxTokens int
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ErrBadRequest marks a Generator's error as the request's fault: the
// server answers it with HTTP 400.
var ErrBadRequest = errors.New("openai: bad request")

// Usage is a completion's token counts and end.
type Usage struct {
	PromptTokens, CompletionTokens int
	// FinishReason is "stop" (end of sequence) or "length" (max_tokens).
	FinishReason string
}

// Handler serves one model's /v1/completions and /v1/chat/completions
// (streamed as server-sent events or not) and /v1/models, as OpenAI's API
// (https://platform.openai.com/docs/api-reference) with vLLM's
// extensions: a completion's prompt may be token ids, and every choice
// carries the generated ids (token_ids, as vLLM's return_token_ids gives
// them; this server always sends them). The part of the API a greedy
// benchmark needs: requests asking for sampling (temperature > 0) are
// refused.
//
// Every request is bounded: a body of at most MaxRequestBody bytes (a
// larger Content-Length is answered 413 before reading), max_tokens of
// at most MaxTokens, and at most MaxMessages chat messages.
type Handler struct {
	// MaxTokens is the most max_tokens a request may ask for (0:
	// DefaultMaxTokensCap): a generator keeps room for that many tokens
	// per request.
	MaxTokens int

	model string
	gen   Generator
	seq   atomic.Uint64
}

// MaxRequestBody bounds a request's body, in bytes: a prompt of the
// suite's decoders (at most a few thousand tokens) is tens of kB.
const MaxRequestBody = 1 << 20

// MaxMessages bounds the messages of a chat request.
const MaxMessages = 256

// DefaultMaxTokensCap is Handler.MaxTokens when unset: Llama 2's context
// length.
const DefaultMaxTokensCap = 4096

// NewHandler serves gen as model.
func NewHandler(model string, gen Generator) *Handler { return &Handler{model: model, gen: gen} }

// serverRequest is the part of a completions or chat request the handler
// reads.
type serverRequest struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []Message       `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// delta is a streamed chat choice's message part.
type delta struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content"`
}

type serverChoice struct {
	Index        int      `json:"index"`
	Text         *string  `json:"text,omitempty"`
	Delta        *delta   `json:"delta,omitempty"`
	Message      *Message `json:"message,omitempty"`
	Logprobs     any      `json:"logprobs"`
	FinishReason *string  `json:"finish_reason"`
	TokenIDs     []int32  `json:"token_ids"`
}

type usageJSON struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type completion struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []serverChoice `json:"choices"`
	Usage   *usageJSON     `json:"usage,omitempty"`
}

// defaultMaxTokens is OpenAI's max_tokens default.
const defaultMaxTokens = 16

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"object": "list",
			"data": []map[string]any{{"id": h.model, "object": "model", "owned_by": "mlperf"}}})
	case "/v1/completions", "/v1/chat/completions":
		if r.Method != http.MethodPost {
			apiError(w, http.StatusMethodNotAllowed, "POST a completion request")
			return
		}
		h.complete(w, r, r.URL.Path == "/v1/chat/completions")
	default:
		apiError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path+" (this server has /v1/completions, /v1/chat/completions and /v1/models)")
	}
}

// parsePrompt reads a completion's prompt: a string, token ids, or an
// array of one of either.
func parsePrompt(raw json.RawMessage) (string, []int32, error) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, nil, nil
	}
	var ids []int32
	if json.Unmarshal(raw, &ids) == nil && len(ids) > 0 {
		return "", ids, nil
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil && len(texts) == 1 {
		return texts[0], nil, nil
	}
	var batch [][]int32
	if json.Unmarshal(raw, &batch) == nil && len(batch) == 1 && len(batch[0]) > 0 {
		return "", batch[0], nil
	}
	return "", nil, errors.New("prompt must be a string, token ids (an array of integer ids of 32 bits), or an array of one of either")
}

func (h *Handler) complete(w http.ResponseWriter, r *http.Request, chat bool) {
	if r.ContentLength > MaxRequestBody {
		w.Header().Set("Connection", "close")
		apiError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request's %d bytes exceed this server's limit of %d", r.ContentLength, MaxRequestBody))
		return
	}
	var req serverRequest
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
	var g Request
	if chat {
		switch n := len(req.Messages); {
		case n == 0:
			apiError(w, http.StatusBadRequest, "messages: want at least one message")
			return
		case n > MaxMessages:
			apiError(w, http.StatusBadRequest, fmt.Sprintf("messages: %d, at most %d", n, MaxMessages))
			return
		}
		for i, m := range req.Messages {
			if m.Role != "system" && m.Role != "user" && m.Role != "assistant" {
				apiError(w, http.StatusBadRequest, fmt.Sprintf("messages[%d]: role %q: want system, user or assistant", i, m.Role))
				return
			}
		}
		g.Messages = req.Messages
	} else {
		var err error
		if g.Prompt, g.IDs, err = parsePrompt(req.Prompt); err != nil {
			apiError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	g.MaxTokens = defaultMaxTokens
	switch {
	case req.MaxTokens != nil:
		g.MaxTokens = *req.MaxTokens
	case req.MaxCompletionTokens != nil:
		g.MaxTokens = *req.MaxCompletionTokens
	}
	limit := h.MaxTokens
	if limit <= 0 {
		limit = DefaultMaxTokensCap
	}
	if g.MaxTokens < 1 || g.MaxTokens > limit {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("max_tokens %d: want 1 to %d", g.MaxTokens, limit))
		return
	}
	if req.Temperature != nil && *req.Temperature != 0 {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("temperature %g: this server decodes greedily only (temperature 0)", *req.Temperature))
		return
	}
	head := completion{ID: fmt.Sprintf("cmpl-%d", h.seq.Add(1)), Object: "text_completion", Created: time.Now().Unix(), Model: h.model}
	if chat {
		head.ID, head.Object = "chat"+head.ID, "chat.completion.chunk"
	}
	if !req.Stream {
		h.whole(w, r, g, head, chat)
		return
	}
	// The status and headers go with the first event, so that a request
	// the generator refuses at once (an id outside the vocabulary) still
	// gets its HTTP 400.
	f, _ := w.(http.Flusher)
	started := false
	var buf []byte
	event := func(v any) {
		if !started {
			started = true
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
		}
		b, _ := json.Marshal(v)
		buf = append(append(append(buf[:0], "data: "...), b...), "\n\n"...)
		w.Write(buf)
		if f != nil {
			f.Flush()
		}
	}
	u, err := h.gen.Generate(r.Context(), g, func(id int32, text string) {
		c := head
		ch := serverChoice{TokenIDs: []int32{}}
		if id >= 0 {
			ch.TokenIDs = []int32{id}
		}
		if chat {
			d := delta{Content: text}
			if !started {
				d.Role = "assistant"
			}
			ch.Delta = &d
		} else {
			ch.Text = &text
		}
		c.Choices = []serverChoice{ch}
		event(c)
	})
	if err != nil {
		if !started {
			code := http.StatusInternalServerError
			if errors.Is(err, ErrBadRequest) {
				code = http.StatusBadRequest
			}
			apiError(w, code, err.Error())
			return
		}
		// The status is sent: the error goes in the stream, and no [DONE].
		event(map[string]any{"error": map[string]string{"message": err.Error(), "type": "server_error"}})
		return
	}
	last := head
	ch := serverChoice{FinishReason: &u.FinishReason, TokenIDs: []int32{}}
	if chat {
		ch.Delta = &delta{}
	} else {
		empty := ""
		ch.Text = &empty
	}
	last.Choices = []serverChoice{ch}
	event(last)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		c := head
		c.Choices = []serverChoice{}
		c.Usage = &usageJSON{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens}
		event(c)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if f != nil {
		f.Flush()
	}
}

// whole answers a request that is not streamed.
func (h *Handler) whole(w http.ResponseWriter, r *http.Request, g Request, head completion, chat bool) {
	var text strings.Builder
	ids := []int32{}
	u, err := h.gen.Generate(r.Context(), g, func(id int32, s string) {
		if id >= 0 {
			ids = append(ids, id)
		}
		text.WriteString(s)
	})
	if err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, ErrBadRequest) {
			code = http.StatusBadRequest
		}
		apiError(w, code, err.Error())
		return
	}
	s := text.String()
	ch := serverChoice{FinishReason: &u.FinishReason, TokenIDs: ids}
	if chat {
		head.Object = "chat.completion"
		ch.Message = &Message{Role: "assistant", Content: s}
	} else {
		ch.Text = &s
	}
	head.Choices = []serverChoice{ch}
	head.Usage = &usageJSON{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens}
	writeJSON(w, http.StatusOK, head)
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
