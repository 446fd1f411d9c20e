package kserve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// This file is the REST client's own HTTP/1.1 transport for inference
// requests. net/http copies a request body through a 32 KiB buffer and
// writes it in 32 KiB pieces (21 write calls for a 602 kB ResNet50
// request) and reads answers of any size; here a request is one vectored
// write (writev) of the HTTP header, the JSON header and the tensors'
// bytes straight from the caller's slices, on a kept-alive connection,
// and an answer is read into a pooled buffer only after its size is
// checked against the bound the caller gives (the model's outputs).
// Metadata requests, which are rare, still go through net/http.

// restTransport keeps up to max connections to one server.
type restTransport struct {
	addr    string // host:port to dial
	tls     *tls.Config
	dialer  net.Dialer
	head    []byte        // "POST <path> HTTP/1.1\r\nHost: ...\r\n...Inference-Header-Content-Length: "
	auth    string        // an Authorization header line, or ""
	tokens  chan struct{} // one per connection that may be open
	mu      sync.Mutex
	idle    []*restConn
	errBody int64 // how much of an error answer is read
}

// restConn is one HTTP/1.1 connection with its read buffer and the
// scratch space of the requests it sends.
type restConn struct {
	net.Conn
	br   *bufio.Reader
	head []byte
	js   []byte
	pays [][]byte
	bufs [8][]byte
	// reused: the connection has carried a request before (a failure
	// before any answer byte may be the server closing it while idle).
	reused bool
}

// restBufSize is a connection's read buffer: an answer that fits in it
// (ResNet50's 4 kB, a small model's) is parsed where it lies.
const restBufSize = 64 << 10

// maxAnswerHeader bounds an answer's status line and header block.
const maxAnswerHeader = 64 << 10

func newRESTTransport(scheme, host, path string, maxConns int, auth string) *restTransport {
	t := &restTransport{addr: host, tokens: make(chan struct{}, maxConns), errBody: 64 << 10,
		dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}}
	if scheme == "https" {
		h, _, err := net.SplitHostPort(host)
		if err != nil {
			h = host
		}
		t.tls = &tls.Config{ServerName: h}
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		if scheme == "https" {
			t.addr = net.JoinHostPort(host, "443")
		} else {
			t.addr = net.JoinHostPort(host, "80")
		}
	}
	t.head = fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: mlperf-go\r\nContent-Type: application/octet-stream\r\n", path, host)
	if auth != "" {
		t.head = fmt.Appendf(t.head, "Authorization: %s\r\n", auth)
	}
	t.head = append(t.head, HeaderLength+": "...)
	return t
}

// get returns an idle connection or dials one, waiting for a free
// connection while max are in use.
func (t *restTransport) get(ctx context.Context) (*restConn, error) {
	select {
	case t.tokens <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t.mu.Lock()
	if n := len(t.idle); n > 0 {
		c := t.idle[n-1]
		t.idle[n-1] = nil
		t.idle = t.idle[:n-1]
		t.mu.Unlock()
		return c, nil
	}
	t.mu.Unlock()
	c, err := t.dial(ctx)
	if err != nil {
		<-t.tokens
		return nil, err
	}
	return c, nil
}

func (t *restTransport) dial(ctx context.Context) (*restConn, error) {
	nc, err := t.dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	if t.tls != nil {
		tc := tls.Client(nc, t.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, err
		}
		nc = tc
	}
	return &restConn{Conn: nc, br: bufio.NewReaderSize(nc, restBufSize), head: make([]byte, 0, len(t.head)+64), js: make([]byte, 0, 512)}, nil
}

// put gives a connection back: kept for the next request if keep is
// true, else closed.
func (t *restTransport) put(c *restConn, keep bool) {
	if keep {
		c.reused = true
		t.mu.Lock()
		t.idle = append(t.idle, c)
		t.mu.Unlock()
	} else {
		c.Close()
	}
	<-t.tokens
}

// closeIdle closes the idle connections.
func (t *restTransport) closeIdle() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, c := range idle {
		c.Close()
	}
}

// restAnswer is an answer's status, its Inference-Header-Content-Length
// (-1: none) and its body; release gives the body's buffer back.
type restAnswer struct {
	status  int
	jsonLen int64
	body    []byte
	// pooled is body's buffer from answerPool; nil when body lies in the
	// connection's read buffer (bodyPeeked) or is empty.
	pooled     *[]byte
	bodyPeeked bool
	conn       *restConn
	keep       bool
}

// errAnswerTooLarge marks an answer larger than its bound.
var errAnswerTooLarge = errors.New("the answer is too large")

// roundTrip sends one request, the JSON header js and the payloads, and
// reads the answer, whose body may be at most limit(binary) bytes
// (binary: the answer has an Inference-Header-Content-Length, so its
// tensors are binary data). The caller calls t.done(a) when it has used
// a.body. A request that fails on a reused connection before any byte of
// the answer arrives (the server closed it while idle) is sent again,
// once, on a new connection.
func (t *restTransport) roundTrip(ctx context.Context, js []byte, payloads [][]byte, limit func(binary bool) int64) (restAnswer, error) {
	for attempt := 0; ; attempt++ {
		c, err := t.get(ctx)
		if err != nil {
			return restAnswer{}, err
		}
		a, sent, err := t.exchange(ctx, c, js, payloads, limit)
		if err == nil {
			return a, nil
		}
		if a.pooled != nil {
			answerPool.Put(a.pooled)
		}
		retry := c.reused && !sent && attempt == 0 && ctx.Err() == nil
		t.put(c, false)
		if !retry {
			if ctx.Err() != nil {
				return restAnswer{}, ctx.Err()
			}
			return restAnswer{}, err
		}
	}
}

// exchange is one request on c; answered reports whether any byte of the
// answer arrived (then the request must not be sent again).
func (t *restTransport) exchange(ctx context.Context, c *restConn, js []byte, payloads [][]byte, limit func(bool) int64) (a restAnswer, answered bool, err error) {
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	} else {
		c.SetDeadline(time.Time{})
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	size := len(js)
	for _, p := range payloads {
		size += len(p)
	}
	h := append(c.head[:0], t.head...)
	h = strconv.AppendInt(h, int64(len(js)), 10)
	h = append(h, "\r\nContent-Length: "...)
	h = strconv.AppendInt(h, int64(size), 10)
	h = append(h, "\r\n\r\n"...)
	c.head = h
	bufs := append(c.bufs[:0], h, js)
	for _, p := range payloads {
		if len(p) > 0 {
			bufs = append(bufs, p)
		}
	}
	if err := writeBuffers(c.Conn, bufs); err != nil {
		return a, false, fmt.Errorf("sending the request: %w", err)
	}
	if _, err := c.br.Peek(1); err != nil {
		return a, false, fmt.Errorf("reading the answer: %w", err)
	}
	a, err = readAnswer(c.br, limit, t.errBody)
	if err != nil {
		return a, true, err
	}
	a.conn = c
	return a, true, nil
}

// done releases an answer: its buffer goes back to the pool and its
// connection back to the transport (closed if the answer said so).
func (t *restTransport) done(a *restAnswer) {
	if a.pooled != nil {
		answerPool.Put(a.pooled)
		a.pooled = nil
	}
	if a.conn != nil {
		if a.keep && a.bodyPeeked {
			a.conn.br.Discard(len(a.body))
		}
		t.put(a.conn, a.keep)
		a.conn = nil
	}
	a.body = nil
}

// answerPool holds answer bodies (*[]byte) too large for a connection's
// read buffer.
var answerPool sync.Pool

// readAnswer reads an HTTP/1.1 answer from br: the status line, a header
// block of at most maxAnswerHeader bytes and a body (Content-Length,
// chunked or to the end of the connection) of at most limit(binary)
// bytes for a 200, errBody for another status (its body then cut
// there). A body that fits in br's buffer is left there (a.bodyPeeked);
// otherwise it is read into a pooled buffer.
func readAnswer(br *bufio.Reader, limit func(binary bool) int64, errBody int64) (restAnswer, error) {
	a := restAnswer{jsonLen: -1, keep: true}
	length, chunked, err := readAnswerHead(br, &a)
	if err != nil {
		return a, err
	}
	max := errBody
	if a.status == 200 {
		max = limit(a.jsonLen >= 0)
	}
	switch {
	case chunked:
		return a, readChunked(br, &a, max)
	case length < 0:
		// The body runs to the end of the connection.
		a.keep = false
		return a, readToEnd(br, &a, max)
	case length > max:
		if a.status != 200 {
			// Read what the message needs; the rest is dropped with
			// the connection.
			a.keep = false
			return a, readN(br, &a, max)
		}
		a.keep = false
		return a, fmt.Errorf("%w: it claims %d bytes, over the %d this request's answer can take", errAnswerTooLarge, length, max)
	}
	return a, readN(br, &a, length)
}

// readAnswerHead reads the status line and the header block, skipping
// 1xx answers, and returns the body's Content-Length (-1: none) and
// whether it is chunked.
func readAnswerHead(br *bufio.Reader, a *restAnswer) (length int64, chunked bool, err error) {
	for {
		used := 0
		line, err := headLine(br, &used)
		if err != nil {
			return 0, false, err
		}
		// HTTP/1.x NNN reason
		if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
			return 0, false, fmt.Errorf("the answer is not HTTP/1.1: %q", clip(line))
		}
		code, err := strconv.Atoi(string(line[9:12]))
		if err != nil || code < 100 {
			return 0, false, fmt.Errorf("the answer's status line is malformed: %q", clip(line))
		}
		a.status = code
		if line[7] == '0' {
			a.keep = false // HTTP/1.0: closes unless told otherwise
		}
		length = -1
		chunked = false
		for {
			line, err := headLine(br, &used)
			if err != nil {
				return 0, false, err
			}
			if len(line) == 0 {
				break
			}
			k, v, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				return 0, false, fmt.Errorf("the answer has a malformed header line: %q", clip(line))
			}
			v = bytes.TrimSpace(v)
			switch {
			case asciiEqualFold(k, "Content-Length"):
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil || n < 0 {
					return 0, false, fmt.Errorf("the answer's Content-Length %q is not a byte count", clip(v))
				}
				length = n
			case asciiEqualFold(k, "Transfer-Encoding"):
				if !asciiEqualFold(v, "chunked") {
					return 0, false, fmt.Errorf("the answer's Transfer-Encoding %q is not supported (want chunked or none)", clip(v))
				}
				chunked = true
			case asciiEqualFold(k, "Connection"):
				switch {
				case asciiEqualFold(v, "close"):
					a.keep = false
				case asciiEqualFold(v, "keep-alive"):
					a.keep = true
				}
			case asciiEqualFold(k, HeaderLength):
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil || n < 0 {
					return 0, false, fmt.Errorf("bad %s %q", HeaderLength, clip(v))
				}
				a.jsonLen = n
			}
		}
		if code >= 200 {
			return length, chunked, nil
		}
	}
}

// headLine reads one header line without its CRLF, counting its bytes in
// used against maxAnswerHeader.
func headLine(br *bufio.Reader, used *int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	*used += len(line)
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || *used > maxAnswerHeader:
		return nil, fmt.Errorf("the answer's header is over %d bytes", maxAnswerHeader)
	case err == io.EOF && len(line) == 0:
		return nil, io.ErrUnexpectedEOF
	case err != nil:
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// readN reads a body of n bytes: in place when br's buffer can hold it,
// else into a pooled buffer.
func readN(br *bufio.Reader, a *restAnswer, n int64) error {
	if n <= int64(br.Size()) {
		b, err := br.Peek(int(n))
		if err != nil {
			return truncated(err)
		}
		a.body, a.bodyPeeked = b, true
		return nil
	}
	p, _ := answerPool.Get().(*[]byte)
	if p == nil || int64(cap(*p)) < n {
		b := make([]byte, n)
		p = &b
	}
	*p = (*p)[:n]
	a.pooled = p
	if _, err := io.ReadFull(br, *p); err != nil {
		return truncated(err)
	}
	a.body = *p
	return nil
}

// readChunked reads a chunked body of at most max bytes into a pooled
// buffer that grows as chunks arrive.
func readChunked(br *bufio.Reader, a *restAnswer, max int64) error {
	p, _ := answerPool.Get().(*[]byte)
	if p == nil {
		b := make([]byte, 0, 64<<10)
		p = &b
	}
	*p = (*p)[:0]
	a.pooled = p
	used := 0
	for {
		line, err := headLine(br, &used)
		if err != nil {
			return truncated(err)
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // chunk extensions
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || len(line) > 15 {
			return fmt.Errorf("the answer's chunk size %q is malformed", clip(line))
		}
		n, err := strconv.ParseInt(string(line), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("the answer's chunk size %q is malformed", clip(line))
		}
		if n == 0 {
			break
		}
		if int64(len(*p))+n > max {
			a.keep = false
			if a.status != 200 {
				// An error's message: what fits is enough.
				have := len(*p)
				*p = growTo(*p, int(max))
				k, _ := io.ReadFull(br, (*p)[have:])
				*p = (*p)[:have+k]
				a.body = *p
				return nil
			}
			return fmt.Errorf("%w: its chunks run past the %d bytes this request's answer can take", errAnswerTooLarge, max)
		}
		*p = growTo(*p, len(*p)+int(n))
		if _, err := io.ReadFull(br, (*p)[len(*p)-int(n):]); err != nil {
			return truncated(err)
		}
		if crlf, err := headLine(br, &used); err != nil || len(crlf) != 0 {
			return fmt.Errorf("the answer's chunk of %d bytes is not followed by CRLF", n)
		}
		used = 0
	}
	// Trailers, up to the empty line.
	for {
		line, err := headLine(br, &used)
		if err != nil {
			return truncated(err)
		}
		if len(line) == 0 {
			break
		}
	}
	a.body = *p
	return nil
}

// readToEnd reads a body that ends with the connection, at most max
// bytes.
func readToEnd(br *bufio.Reader, a *restAnswer, max int64) error {
	p, _ := answerPool.Get().(*[]byte)
	if p == nil {
		b := make([]byte, 0, 64<<10)
		p = &b
	}
	*p = (*p)[:0]
	a.pooled = p
	buf := bytes.NewBuffer(*p)
	n, err := buf.ReadFrom(io.LimitReader(br, max+1))
	*p = buf.Bytes()
	if err != nil {
		return truncated(err)
	}
	if n > max {
		if a.status != 200 {
			*p = (*p)[:max]
		} else {
			return fmt.Errorf("%w: it runs past the %d bytes this request's answer can take", errAnswerTooLarge, max)
		}
	}
	a.body = *p
	return nil
}

// growTo returns b extended to n bytes, reallocating (doubling) when
// needed.
func growTo(b []byte, n int) []byte {
	if n <= cap(b) {
		return b[:n]
	}
	nb := make([]byte, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

func truncated(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("the answer was cut short: %w", err)
}

// clip shortens b for a message.
func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
