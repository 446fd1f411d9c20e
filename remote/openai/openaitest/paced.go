// Package openaitest serves a fake LLM engine for measuring the client:
// a /v1/completions stream whose tokens leave at fixed times, each time
// recorded as the server wrote it, so that what a client reports (TTFT,
// TPOT) can be compared with what the server did.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Paced is an http.Handler serving /v1/models and streamed
// /v1/completions (prompt as text or ids; token_ids with
// return_token_ids, as vLLM) whose tokens are written TTFT after the
// request arrives and then every Interval. GET /stats returns the
// records as JSON. It is safe for concurrent use.
type Paced struct {
	// TTFT is the time from a request's arrival to its first token;
	// Interval the time between tokens; Tokens how many each response has
	// (max_tokens, if smaller, wins).
	TTFT, Interval time.Duration
	Tokens         int

	mu      sync.Mutex
	records []Record
}

// Record is one response as the server wrote it, times in ns since the
// Unix epoch: the request read, the first token's event written (the
// time taken just before the write) and the last one's.
type Record struct {
	Received, First, Last int64
	Tokens                int
	// Key is the request's prompt as sent (JSON, its first 64 bytes), to
	// match a record to the client's sample.
	Key string
}

// Records returns the responses so far.
func (p *Paced) Records() []Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Record(nil), p.records...)
}

// Reset forgets the records.
func (p *Paced) Reset() {
	p.mu.Lock()
	p.records = nil
	p.mu.Unlock()
}

// waitUntil sleeps until t, spinning for the last stretch: the runtime's
// timers may wake late by a fraction of a millisecond, which would pace
// the tokens unevenly.
func waitUntil(t time.Time) {
	if d := time.Until(t) - 50*time.Microsecond; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(t) {
	}
}

// ServeHTTP implements http.Handler.
func (p *Paced) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"paced","object":"model"}]}`)
		return
	case "/stats":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(p.Records())
		return
	case "/v1/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var req struct {
		Prompt         json.RawMessage `json:"prompt"`
		MaxTokens      int             `json:"max_tokens"`
		ReturnTokenIDs bool            `json:"return_token_ids"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Record{Received: time.Now().UnixNano(), Tokens: p.Tokens, Key: string(req.Prompt[:min(len(req.Prompt), 64)])}
	if req.MaxTokens > 0 && req.MaxTokens < rec.Tokens {
		rec.Tokens = req.MaxTokens
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	w.WriteHeader(http.StatusOK)
	f.Flush()
	start := time.Unix(0, rec.Received).Add(p.TTFT)
	var b []byte
	for k := range rec.Tokens {
		waitUntil(start.Add(time.Duration(k) * p.Interval))
		b = append(b[:0], `data: {"id":"cmpl-paced","object":"text_completion","model":"paced","choices":[{"index":0,"text":" w`...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, '"')
		if req.ReturnTokenIDs {
			b = append(b, `,"token_ids":[`...)
			b = strconv.AppendInt(b, int64(k), 10)
			b = append(b, ']')
		}
		if k == rec.Tokens-1 {
			b = append(b, `,"finish_reason":"length"}]}`...)
		} else {
			b = append(b, `,"finish_reason":null}]}`...)
		}
		b = append(b, "\n\n"...)
		now := time.Now().UnixNano()
		if k == 0 {
			rec.First = now
		}
		rec.Last = now
		if _, err := w.Write(b); err != nil {
			return
		}
		f.Flush()
	}
	// Recorded before [DONE], which lets the client look.
	p.mu.Lock()
	p.records = append(p.records, rec)
	p.mu.Unlock()
	fmt.Fprint(w, "data: [DONE]\n\n")
	f.Flush()
}
