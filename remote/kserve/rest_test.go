package kserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
)

// rawServer answers each HTTP request it reads with what answer writes,
// on connections it accepts until the test ends; GETs get the metadata
// of a model with input x FP32 [-1,3] and output y FP32 [-1,3].
type rawServer struct {
	ln       net.Listener
	answer   func(c net.Conn, n int) // n counts the POSTs so far, from 1
	posts    atomic.Int64
	accepted atomic.Int64
}

func newRawServer(t *testing.T, answer func(c net.Conn, n int)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, answer: answer}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			go s.serveConn(c)
		}
	}()
	return s
}

func (s *rawServer) serveConn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		if req.Method == http.MethodGet {
			meta, _ := json.Marshal(ModelMeta{Name: "m", Inputs: []TensorMeta{{Name: "x", Datatype: "FP32", Shape: []int64{-1, 3}}}, Outputs: []TensorMeta{{Name: "y", Datatype: "FP32", Shape: []int64{-1, 3}}}})
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(meta), meta)
			continue
		}
		s.answer(c, int(s.posts.Add(1)))
	}
}

func (s *rawServer) addr() string { return s.ln.Addr().String() }

// goodAnswer is the binary answer y = [1,2,3] of one sample, with the
// HTTP head given (which must end before the body).
func goodAnswer(head string) string {
	js := `{"model_name":"m","outputs":[{"name":"y","shape":[1,3],"datatype":"FP32","parameters":{"binary_data_size":12}}]}`
	var b bytes.Buffer
	b.WriteString(js)
	for _, v := range []uint32{0x3f800000, 0x40000000, 0x40400000} {
		b.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
	}
	return fmt.Sprintf(head, len(js), b.Len()) + b.String()
}

var oneSample = []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}

func dialRaw(t *testing.T, s *rawServer) *Session {
	t.Helper()
	sess, err := Dial(context.Background(), Config{Endpoint: s.addr(), Model: "m", Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// Answers the client must refuse without reading them whole: each ends
// in an error that says what was wrong, never an allocation of what the
// server claims or a wait for a body without end.
func TestClientBoundsAnswers(t *testing.T) {
	endless := func(c net.Conn, unit []byte) {
		for {
			if _, err := c.Write(unit); err != nil {
				return
			}
		}
	}
	for _, c := range []struct {
		name   string
		answer func(c net.Conn)
		want   string
	}{
		{"claims 3 GiB", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nInference-Header-Content-Length: 100\r\nContent-Length: 3221225472\r\n\r\n")
		}, "it claims 3221225472 bytes, over the 65548 this request's answer can take"},
		{"claims 2 GiB, no binary", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n")
		}, "it claims 2147483648 bytes, over the 65632"},
		{"endless chunked", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nInference-Header-Content-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n")
			endless(c, []byte("4000\r\n"+strings.Repeat("x", 0x4000)+"\r\n"))
		}, "its chunks run past the 65548 bytes"},
		{"endless, delimited by the close", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nInference-Header-Content-Length: 100\r\nConnection: close\r\n\r\n")
			endless(c, make([]byte, 32<<10))
		}, "it runs past the 65548 bytes"},
		{"endless header", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\n")
			endless(c, []byte("X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"))
		}, "header is over 65536 bytes"},
		{"header line without end", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Pad: ")
			endless(c, bytes.Repeat([]byte("a"), 4096))
		}, "header is over 65536 bytes"},
		{"chunk size of 2^52", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000\r\n")
		}, "its chunks run past"},
		{"not HTTP", func(c net.Conn) { io.WriteString(c, "SSH-2.0-OpenSSH_9.6\r\n") }, "not HTTP/1.1"},
		{"cut short", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"model")
			c.Close()
		}, "cut short"},
		{"bad Content-Length", func(c net.Conn) { io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n") }, `Content-Length "-5" is not a byte count`},
		{"error with an endless body", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n")
			endless(c, []byte("4000\r\n"+strings.Repeat("e", 0x4000)+"\r\n"))
		}, "HTTP 500: eeee"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newRawServer(t, func(conn net.Conn, _ int) { c.answer(conn) })
			sess := dialRaw(t, s)
			_, err := sess.Run(context.Background(), oneSample)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "infer on http://"+s.addr()) {
				t.Errorf("the error does not name the node: %v", err)
			}
		})
	}
}

// Good answers in each framing decode alike; a connection the server
// keeps is reused, one it closes (Connection: close, or closed while
// idle) is replaced, and a request that failed on a stale connection
// before any answer is sent again once.
func TestClientFramingsAndReuse(t *testing.T) {
	chunk := func(c net.Conn) {
		full := goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nX-Len: %d\r\n\r\n")
		head, body, _ := strings.Cut(full, "\r\n\r\n")
		head = strings.Replace(head, "X-Len", "X-Ignored", 1) + "\r\nTransfer-Encoding: chunked\r\n\r\n"
		fmt.Fprintf(c, "%s%x;ext=1\r\n%s\r\n%x\r\n%s\r\n0\r\nTrailer: t\r\n\r\n", head, 50, body[:50], len(body)-50, body[50:])
	}
	for _, c := range []struct {
		name      string
		answer    func(c net.Conn, n int)
		wantConns int64
	}{
		{"content-length, kept", func(c net.Conn, _ int) {
			io.WriteString(c, goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n"))
		}, 1},
		{"100 Continue first", func(c net.Conn, _ int) {
			io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n"+goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n"))
		}, 1},
		{"chunked with extensions and trailers", func(c net.Conn, _ int) { chunk(c) }, 1},
		{"connection: close", func(c net.Conn, _ int) {
			io.WriteString(c, goodAnswer("HTTP/1.1 200 OK\r\nConnection: close\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n"))
			c.Close()
		}, 3},
		{"closed while idle after each answer", func(c net.Conn, _ int) {
			io.WriteString(c, goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n"))
			time.Sleep(20 * time.Millisecond) // the client reads the answer first
			c.Close()
		}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newRawServer(t, c.answer)
			sess := dialRaw(t, s)
			for i := range 3 {
				out, err := sess.Run(context.Background(), oneSample)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if y := out[0].Data.([]float32); out[0].Name != "y" || len(y) != 3 || y[0] != 1 || y[2] != 3 {
					t.Fatalf("request %d: %+v", i, out[0])
				}
			}
			// The metadata GET has its own connection.
			if got := s.accepted.Load() - 1; got != c.wantConns {
				t.Errorf("%d inference connections for 3 requests, want %d", got, c.wantConns)
			}
		})
	}
}

// A request on a fresh connection that the server closes without an
// answer is not sent again: the error says the answer never came.
func TestClientDoesNotResendOnAFreshConnection(t *testing.T) {
	s := newRawServer(t, func(c net.Conn, _ int) { c.Close() })
	sess := dialRaw(t, s)
	if _, err := sess.Run(context.Background(), oneSample); err == nil || !strings.Contains(err.Error(), "reading the answer") {
		t.Fatalf("%v", err)
	}
	if n := s.posts.Load(); n != 1 {
		t.Errorf("the request was sent %d times", n)
	}
}

// Cancelling the caller's context ends a request whose answer stalls.
func TestClientCancelEndsAStalledAnswer(t *testing.T) {
	s := newRawServer(t, func(c net.Conn, _ int) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")
		time.Sleep(time.Hour)
	})
	sess, err := Dial(context.Background(), Config{Endpoint: s.addr(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := sess.Run(ctx, oneSample); done <- err }()
	for s.posts.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v", err)
	}
}

// An endpoint with userinfo authenticates every request with it, and no
// message shows the password.
func TestClientBasicAuthAndRedaction(t *testing.T) {
	got := make(chan string, 4)
	s := newRawServer(t, func(c net.Conn, _ int) {
		io.WriteString(c, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 9\r\n\r\nno way s3")
	})
	_ = got
	sess, err := Dial(context.Background(), Config{Endpoint: "http://user:s3cret@" + s.addr(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if !strings.Contains(string(sess.rest.head), "Authorization: Basic dXNlcjpzM2NyZXQ=\r\n") {
		t.Errorf("no basic authentication in the request head %q", sess.rest.head)
	}
	_, err = sess.Run(context.Background(), oneSample)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "HTTP 401") {
		t.Errorf("401: %v", err)
	}
	if _, err := Dial(context.Background(), Config{Endpoint: "http://user:s3cret@bad host:1", Model: "m"}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("malformed endpoint with a password: %v", err)
	}
}

// bloated declares double's contract but answers 4 MiB per sample: the
// answer of a server that does not run the model it describes.
type bloated struct{ double }

func (bloated) Run(_ context.Context, in []backend.Tensor) ([]backend.Tensor, error) {
	n := 1 << 20
	return []backend.Tensor{{Name: "y", DType: backend.Float32, Shape: []int64{int64(n)}, Data: make([]float32, n)},
		{Name: "n", DType: backend.Int64, Shape: []int64{1}, Data: []int64{1}}}, nil
}

// Over REST and gRPC alike, an answer larger than the model's outputs for
// the batch sent is refused, saying so.
func TestClientRefusesAnswersOverTheContract(t *testing.T) {
	s := NewServer("n", "1")
	if err := s.Add("double", bloated{}, 1); err != nil {
		t.Fatal(err)
	}
	addr, _ := serveGRPC(t, s)
	g, err := DialGRPC(context.Background(), Config{Endpoint: addr, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{1, 3}, Data: []float32{1, 2, 3}}}
	if _, err := g.Run(context.Background(), x); err == nil || !strings.Contains(err.Error(), "the server does not answer with the model it describes") {
		t.Errorf("gRPC: %v", err)
	}
	_, hs := serve(t, bloated{})
	r, err := Dial(context.Background(), Config{Endpoint: hs.URL, Model: "double"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Run(context.Background(), x); err == nil || !strings.Contains(err.Error(), "over the 65556 this request's answer can take") || !strings.Contains(err.Error(), "the server does not answer with the model it describes") {
		t.Errorf("REST: %v", err)
	}
}

// writeBuffers delivers every byte in order when the socket takes the
// buffers in many partial writes (a reader slower than the writer).
func TestWriteBuffersPartialWrites(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	bufs := [][]byte{[]byte("head:"), {}, make([]byte, 6<<20), []byte(":tail")}
	for i := range bufs[2] {
		bufs[2][i] = byte(i * 7)
	}
	want := bytes.Join(bufs, nil)
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for b.Len() < len(want) {
			n, err := c.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		got <- b.Bytes()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := writeBuffers(c, append([][]byte(nil), bufs...)); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("the reader got %d bytes, want %d equal to what was written", len(b), len(want))
	}
	// A closed peer is an error, not a hang.
	c2, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ln.Accept(); err == nil {
		s.Close()
	}
	big := [][]byte{make([]byte, 64<<20)}
	if err := writeBuffers(c2, big); err == nil {
		t.Error("64 MiB written to a closed peer without an error")
	}
	c2.Close()
}

// TestClientReportsCutAnswers: an answer cut in its head, or no answer, is
// an EOF error; one cut in a body of known length is "cut short" with
// io.ErrUnexpectedEOF; a body that runs to the end of the connection and
// is whole decodes.
func TestClientReportsCutAnswers(t *testing.T) {
	full := goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n")
	whole := strings.Replace(full, "\r\nContent-Length: 124\r\n", "\r\nConnection: close\r\n", 1)
	if whole == full {
		t.Fatal("the answer without Content-Length was not made")
	}
	for _, c := range []struct {
		name   string
		answer string
		ok     bool
	}{
		{"head cut", "HTTP/1.1 200 OK\r\nContent-Le", false},
		{"status line cut", "HTTP/1.1 200 O", false},
		{"nothing", "", false},
		{"body of known length cut", full[:len(full)-5], false}, // io.ErrUnexpectedEOF itself, below
		{"body to the end, whole", whole, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newRawServer(t, func(conn net.Conn, n int) {
				io.WriteString(conn, c.answer)
				conn.Close()
			})
			out, err := dialRaw(t, s).Run(context.Background(), oneSample)
			switch {
			case c.ok && (err != nil || len(out) != 1):
				t.Errorf("%v, %v", out, err)
			case !c.ok && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF):
				t.Errorf("%v, want an EOF error", err)
			case c.name == "body of known length cut" && (!errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "the answer was cut short")):
				t.Errorf("%v, want the answer cut short: unexpected EOF", err)
			}
		})
	}
}

// With Config.Client set, requests go through that net/http client: the
// answer decodes as over the pooled transport, an endpoint's userinfo
// becomes the Authorization header of every inference request (and none
// is sent without it), and answers are bounded alike.
func TestClientThroughACallersHTTPClient(t *testing.T) {
	srv := NewServer("n", "1")
	if err := srv.Add("double", double{}, 1); err != nil {
		t.Fatal(err)
	}
	auth := make(chan []string, 8)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			auth <- r.Header["Authorization"]
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	host := strings.TrimPrefix(hs.URL, "http://")
	for _, c := range []struct {
		endpoint string
		want     []string
	}{
		{"http://user:s3cret@" + host, []string{"Basic dXNlcjpzM2NyZXQ="}},
		{host, nil},
	} {
		sess, err := Dial(context.Background(), Config{Endpoint: c.endpoint, Model: "double", Client: hs.Client()})
		if err != nil {
			t.Fatal(err)
		}
		if sess.rest != nil {
			t.Fatal("Dial made its own transport though Config.Client is set")
		}
		x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2, 3}, Data: []float32{1, 2, 3, -1, 0.5, 7}}}
		out, err := sess.Run(context.Background(), x)
		if err != nil {
			t.Fatalf("%s: %v", c.endpoint, err)
		}
		if y := out[0].Data.([]float32); len(y) != 6 || y[0] != 2 || y[2] != 6 || y[3] != -2 || y[4] != 1 || y[5] != 14 {
			t.Errorf("%s: y = %v, want 2x", c.endpoint, y)
		}
		if n := out[1].Data.([]int64); n[0] != 2 {
			t.Errorf("%s: n = %v, want 2", c.endpoint, n)
		}
		if got := <-auth; !slices.Equal(got, c.want) {
			t.Errorf("%s: Authorization %q, want %q", c.endpoint, got, c.want)
		}
		sess.Close()
	}
	endless := func(c net.Conn, unit []byte) {
		for {
			if _, err := c.Write(unit); err != nil {
				return
			}
		}
	}
	for _, c := range []struct {
		name   string
		answer func(c net.Conn)
		want   string
	}{
		{"claims 3 GiB", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nInference-Header-Content-Length: 100\r\nContent-Length: 3221225472\r\n\r\n")
		}, "it claims 3221225472 bytes, over the 65548 this request's answer can take"},
		{"endless, delimited by the close", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nInference-Header-Content-Length: 100\r\nConnection: close\r\n\r\n")
			endless(c, make([]byte, 32<<10))
		}, "it runs past the 65548 bytes"},
		{"negative JSON length", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nInference-Header-Content-Length: -3\r\nContent-Length: 2\r\n\r\n{}")
		}, `bad Inference-Header-Content-Length "-3"`},
		{"error with an endless body", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\n\r\n")
			endless(c, bytes.Repeat([]byte("e"), 0x4000))
		}, "HTTP 500: eeee"},
		{"good", func(c net.Conn) {
			io.WriteString(c, goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n"))
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newRawServer(t, func(conn net.Conn, _ int) { c.answer(conn) })
			sess, err := Dial(context.Background(), Config{Endpoint: s.addr(), Model: "m", Client: &http.Client{Timeout: 20 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			out, err := sess.Run(context.Background(), oneSample)
			if c.want == "" {
				if err != nil || len(out) != 1 || out[0].Data.([]float32)[2] != 3 {
					t.Fatalf("%v, %v; want y = [1 2 3]", out, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "infer on http://"+s.addr()) {
				t.Fatalf("%v, want %q naming the node", err, c.want)
			}
		})
	}
}

// A body delimited by the close that ends in a connection reset instead
// is refused as cut short, naming the reset, not decoded from what came.
func TestClientReportsAResetBody(t *testing.T) {
	full := goodAnswer("HTTP/1.1 200 OK\r\nInference-Header-Content-Length: %d\r\nConnection: close\r\n\r\n")
	s := newRawServer(t, func(conn net.Conn, n int) {
		io.WriteString(conn, full[:len(full)-5])
		conn.(*net.TCPConn).SetLinger(0) // Close sends RST, not FIN
		conn.Close()
	})
	_, err := dialRaw(t, s).Run(context.Background(), oneSample)
	if !errors.Is(err, syscall.ECONNRESET) || !strings.Contains(err.Error(), "the answer was cut short") {
		t.Errorf("%v, want the answer cut short by a reset", err)
	}
}
