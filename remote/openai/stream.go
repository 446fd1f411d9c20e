package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-go/inference/loadgen"
)

// drainWait bounds how long a worker waits, after a completed stream,
// for the end of the response body.
const drainWait = 100 * time.Millisecond

// errDrained ends a request whose body did not end soon after [DONE].
var errDrained = errors.New("openai: the response went on after [DONE]")

// run sends one sample to ep and completes it.
func (s *SUT) run(j job, ep *endpoint) {
	ep.requests.Add(1)
	if s.cfg.Served != nil {
		s.cfg.Served(j.s.ID, ep.index)
	}
	fail := func(err error) {
		ep.failed.Add(1)
		j.c.Complete(loadgen.Response{ID: j.s.ID, Err: err})
	}
	p, err := s.cfg.Prompt(j.s.Index)
	if err != nil {
		fail(err)
		return
	}
	url, body := ep.url, []byte(nil)
	switch ids := s.form == FormIDs; {
	case s.cfg.API == SGLang:
		body = sglangBody(p, ids, s.cfg.MaxTokens)
	case s.cfg.Chat && !ids:
		url, body = ep.chat, chatBody(s.cfg.Model, p, s.cfg.MaxTokens)
	default:
		body = completionBody(s.cfg.Model, p, ids, s.cfg.MaxTokens)
	}
	// The request ends with the sample's context, the SUT's (Close) or
	// the timeout, whichever comes first.
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	stop := context.AfterFunc(j.ctx, func() { cancel(context.Cause(j.ctx)) })
	defer stop()
	if s.cfg.Timeout > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, s.cfg.Timeout)
		defer c()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		fail(fmt.Errorf("openai: %w", err))
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if ep.auth != "" {
		req.Header.Set("Authorization", ep.auth)
	}
	st := stream{s: s, ep: ep, url: url, j: j, t0: time.Now(), usage: -1}
	resp, err := s.client.Do(req)
	if err != nil {
		fail(s.requestError(ctx, url, err))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fail(fmt.Errorf("openai: %s: HTTP %d: %s", url, resp.StatusCode, s.errorText(resp.Body)))
		return
	}
	ids, err := st.read(resp.Body)
	if err != nil && ctx.Err() != nil {
		err = s.requestError(ctx, url, err)
	}
	if err != nil {
		fail(err)
		return
	}
	j.c.Complete(loadgen.Response{ID: j.s.ID, Data: idsBytes(ids), Tokens: len(ids)})
	ep.latency.Record(since(st.t0))
	// net/http puts a connection back in its pool only once the body is
	// read to its end; the stream stops at [DONE], before the end of the
	// chunked body. Reading it, after the completion, saves the next
	// request a new connection.
	t := time.AfterFunc(drainWait, func() { cancel(errDrained) })
	io.Copy(io.Discard, io.LimitReader(resp.Body, MaxLine))
	t.Stop()
}

// errorText is the start of an error answer's body, trimmed, with the
// API key masked (a server may echo it).
func (s *SUT) errorText(body io.Reader) string {
	msg, _ := io.ReadAll(io.LimitReader(body, 512))
	return s.redact(strings.TrimSpace(string(msg)))
}

// requestError says why a request ended: the SUT closed, the timeout, or
// the network error itself (with the API key masked).
func (s *SUT) requestError(ctx context.Context, url string, err error) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrClosed):
		return fmt.Errorf("%w: the request to %s was still in flight", ErrClosed, url)
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Errorf("openai: %s: no complete answer within the request timeout of %v", url, s.cfg.Timeout)
	}
	return fmt.Errorf("openai: %s: %s", url, s.redact(err.Error()))
}

// idsBytes is the accuracy log's form of token ids: little-endian int32.
func idsBytes(ids []int32) []byte {
	b := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint32(b, uint32(id))
	}
	return b
}

// stream is one response being read.
type stream struct {
	s   *SUT
	ep  *endpoint
	url string
	j   job
	t0  time.Time // the request sent
	// text is the generated text so far; chunkIDs its chunks' ids (with
	// Config.Chunk); server the server's ids.
	text     []byte
	chunkIDs []int32
	server   []int32
	// withIDs and withoutIDs: chunks with text came with ids / without.
	withIDs, withoutIDs bool
	first               bool
	// usage is the server's count of generated tokens (-1: not given).
	usage int
}

// read reads a stream (server-sent events) to its [DONE], reporting the
// first token to the job's completer as soon as it is known, and returns
// the generated ids. Whatever the server sends, it holds at most MaxLine
// bytes of a line, MaxTokens × MaxTokenBytes of text and MaxTokens ids,
// and reads at most MaxTokens × 4 + 4096 lines.
func (st *stream) read(body io.Reader) ([]int32, error) {
	s := st.s
	maxLines := 4*s.cfg.MaxTokens + 4096
	done := false
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 4<<10), MaxLine)
	for lines := 1; sc.Scan(); lines++ {
		if lines > maxLines {
			return nil, fmt.Errorf("openai: %s: the stream runs past %d lines without [DONE] (max_tokens %d takes one event each): the server does not end it", st.url, maxLines, s.cfg.MaxTokens)
		}
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
		if !ok {
			continue // blank separators, comments, event: lines
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			done = true
			break
		}
		var err error
		if s.cfg.API == SGLang {
			err = st.sglangEvent(data)
		} else {
			err = st.event(data)
		}
		if err != nil {
			return nil, err
		}
		if !st.first {
			st.firstToken()
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("openai: %s: a streamed line runs past %d bytes (an event is a few hundred): the server does not send completion chunks", st.url, MaxLine)
		}
		return nil, fmt.Errorf("openai: %s: the stream broke: %w", st.url, err)
	}
	if !done {
		return nil, fmt.Errorf("openai: %s: the stream ended without [DONE] (server died or cut the connection)", st.url)
	}
	var ids []int32
	switch {
	case st.withIDs || s.cfg.API == SGLang:
		ids = st.server
		s.serverIDs.Add(1)
	case s.cfg.Chunk != nil:
		ids = st.chunkIDs
		s.textIDs.Add(1)
	default:
		ids = s.cfg.Encode(string(st.text))
		s.textIDs.Add(1)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("openai: %s: empty completion", st.url)
	}
	if !st.withIDs && s.cfg.API != SGLang && st.usage >= 0 && st.usage != len(ids) {
		s.miscounted.Add(1)
	}
	if !st.first {
		st.report(ids[0])
	}
	return ids, nil
}

// firstToken reports the first token if the stream has one yet.
func (st *stream) firstToken() {
	switch {
	case len(st.server) > 0:
		st.report(st.server[0])
	case st.s.cfg.API == SGLang || st.withIDs:
	case st.s.cfg.Chunk != nil:
		if len(st.chunkIDs) > 0 {
			st.report(st.chunkIDs[0])
		}
	case len(st.text) > 0:
		if ids := st.s.cfg.Encode(string(st.text)); len(ids) > 0 {
			st.report(ids[0])
		}
	}
}

// report hands the first token to the completer and times it.
func (st *stream) report(id int32) {
	st.first = true
	if tc, ok := st.j.c.(loadgen.TokenCompleter); ok {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(id))
		tc.FirstToken(st.j.s.ID, b[:])
	}
	st.ep.ttft.Record(since(st.t0))
}

// event takes one completion chunk (/v1/completions or chat).
func (st *stream) event(data []byte) error {
	s := st.s
	var ch streamChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("openai: %s: a streamed event is not a completion chunk: %q", st.url, s.redact(truncate(data)))
	}
	if ch.Error != nil {
		return fmt.Errorf("openai: %s: server error mid-stream: %s", st.url, s.redact(ch.Error.Message))
	}
	if ch.Object == "error" {
		return fmt.Errorf("openai: %s: server error mid-stream: %s", st.url, s.redact(ch.Message))
	}
	if ch.Usage != nil {
		st.usage = ch.Usage.CompletionTokens
	}
	maxText := s.cfg.MaxTokens*MaxTokenBytes + 4096
	for _, c := range ch.Choices {
		text := c.Text
		if c.Delta != nil {
			text += c.Delta.Content
		}
		if len(st.text)+len(text) > maxText {
			return fmt.Errorf("openai: %s: the stream's text runs past %d bytes, more than max_tokens %d tokens of at most %d bytes each", st.url, maxText, s.cfg.MaxTokens, MaxTokenBytes)
		}
		st.text = append(st.text, text...)
		ids := c.TokenIDs
		if len(ids) == 0 && c.Logprobs != nil {
			var err error
			if ids, err = st.logprobIDs(c.Logprobs); err != nil {
				return err
			}
		}
		switch {
		case len(ids) > 0:
			st.withIDs = true
			if err := st.addServer(ids, false); err != nil {
				return err
			}
		case text != "":
			st.withoutIDs = true
			if s.cfg.Chunk != nil {
				st.chunkIDs = append(st.chunkIDs, s.cfg.Chunk(text)...)
			}
		}
	}
	if st.withIDs && st.withoutIDs {
		return fmt.Errorf("openai: %s: the stream gives token_ids with some chunks and not others; cannot tell the response's ids", st.url)
	}
	return nil
}

// tokenIDPrefix starts a logprobs token that vLLM writes as its id
// (return_tokens_as_token_ids).
const tokenIDPrefix = "token_id:"

// logprobIDs returns the ids of a chunk's logprobs tokens when every one
// is written "token_id:N"; nil when they are text.
func (st *stream) logprobIDs(lp *logprobs) ([]int32, error) {
	toks := lp.Tokens
	if len(toks) == 0 {
		for _, c := range lp.Content {
			toks = append(toks, c.Token)
		}
	}
	if len(toks) == 0 {
		return nil, nil
	}
	ids := make([]int32, 0, len(toks))
	for _, t := range toks {
		n, ok := strings.CutPrefix(t, tokenIDPrefix)
		if !ok {
			return nil, nil
		}
		id, err := strconv.ParseInt(n, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("openai: %s: the logprobs token %q is not token_id:N with N a token id", st.url, st.s.redact(truncate([]byte(t))))
		}
		ids = append(ids, int32(id))
	}
	return ids, nil
}

// addServer checks the server's ids and takes them: appended, or with
// replace as the whole response so far (SGLang's cumulative chunks).
func (st *stream) addServer(ids []int32, replace bool) error {
	s := st.s
	n := len(ids)
	if !replace {
		n += len(st.server)
	}
	if n > s.cfg.MaxTokens {
		return fmt.Errorf("openai: %s: the stream gives more than max_tokens %d token ids", st.url, s.cfg.MaxTokens)
	}
	if v := s.cfg.Vocab; v > 0 {
		for _, id := range ids {
			if id < 0 || int(id) >= v {
				return fmt.Errorf("openai: %s: the server returned token id %d, outside the benchmark's vocabulary of %d ids: it serves another model than the benchmark's (check the server's model and --served-model)", st.url, id, v)
			}
		}
	}
	if replace {
		st.server = append(st.server[:0], ids...)
	} else {
		st.server = append(st.server, ids...)
	}
	return nil
}

// sglangEvent takes one /generate chunk: output_ids are the response so
// far when they number meta_info.completion_tokens (the default), the
// new ids when they number the rest (--incremental-streaming-output).
func (st *stream) sglangEvent(data []byte) error {
	s := st.s
	var ch sglangChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("openai: %s: a streamed event is not a /generate chunk: %q", st.url, s.redact(truncate(data)))
	}
	if ch.Error != nil {
		return fmt.Errorf("openai: %s: server error mid-stream: %s", st.url, s.redact(ch.Error.Message))
	}
	if ch.MetaInfo == nil {
		return fmt.Errorf("openai: %s: a /generate chunk without meta_info: %q", st.url, s.redact(truncate(data)))
	}
	n := ch.MetaInfo.CompletionTokens
	switch have := len(st.server); {
	case len(ch.OutputIDs) == n:
		return st.addServer(ch.OutputIDs, true)
	case have+len(ch.OutputIDs) == n:
		return st.addServer(ch.OutputIDs, false)
	default:
		return fmt.Errorf("openai: %s: a /generate chunk gives %d output_ids with completion_tokens %d after %d ids: neither the response so far nor its increment", st.url, len(ch.OutputIDs), n, have)
	}
}

func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}
