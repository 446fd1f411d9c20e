package serve

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlperf-go/inference/backend"
	"github.com/mlperf-go/inference/remote/kserve"
)

// TestOnePortServesRESTAndGRPC: REST and gRPC clients reach the same model
// on the one --listen port, a silent connection holds up no other, and a
// shutdown drains the gRPC requests in flight as well as the REST ones.
func TestOnePortServesRESTAndGRPC(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Config{Listen: "127.0.0.1:0", Name: "node", Slots: 4}, "m", slow{200 * time.Millisecond}, func(a string) { addrc <- a })
	}()
	addr := <-addrc

	// A client that connects and says nothing.
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	x := []backend.Tensor{{Name: "x", DType: backend.Float32, Shape: []int64{2}, Data: []float32{1, 2}}}
	nodes := map[string]kserve.Node{}
	for _, p := range []string{"http", "grpc"} {
		n, err := kserve.DialNode(context.Background(), kserve.Config{Endpoint: addr, Model: "m", Protocol: p, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		defer n.Close()
		nodes[p] = n
		name, err := n.Name(context.Background())
		if err != nil || !strings.HasPrefix(name, "node ") || !strings.HasSuffix(name, " at "+addr) {
			t.Errorf("%s: Name = %q, %v", p, name, err)
		}
	}
	// An HTTP/1.0 request shorter than the HTTP/2 preface is not held up
	// waiting for more bytes.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte("GET /v2 HTTP/1.0\r\n\r\n"))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("short HTTP/1.0 request: %v, %v", resp, err)
	}
	c.Close()

	// Requests in flight over both protocols when the shutdown comes.
	var wg sync.WaitGroup
	errs := map[string][]error{"http": make([]error, 2), "grpc": make([]error, 2)}
	for p, n := range nodes {
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out []backend.Tensor
				out, errs[p][i] = n.Run(context.Background(), x)
				if errs[p][i] == nil && out[0].Data.([]float32)[1] != 2 {
					t.Errorf("%s: answer %v", p, out[0].Data)
				}
			}()
		}
	}
	time.Sleep(80 * time.Millisecond)
	stop()
	wg.Wait()
	for p, es := range errs {
		for _, err := range es {
			if err != nil {
				t.Errorf("%s request in flight at shutdown: %v", p, err)
			}
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return after the shutdown")
	}
	for p, n := range nodes {
		if _, err := n.Run(context.Background(), x); err == nil {
			t.Errorf("%s: a request after shutdown succeeded", p)
		}
	}
}

// TestRouterSniff: the preface, split over several writes, goes to the
// HTTP/2 side; anything else, even starting like it, to the HTTP/1 side,
// with every byte the router read handed on.
func TestRouterSniff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rt := newRouter(ln, 2*time.Second, 64, 2)
	go rt.serve()
	defer rt.Close()
	for _, c := range []struct {
		send   []string
		toH2   bool
		expect string
	}{
		{[]string{"PRI * HTTP", "/2.0\r\n\r\nSM\r\n\r\nrest"}, true, http2Preface + "rest"},
		{[]string{"PRI * HTTP/1.1\r\n"}, false, "PRI * HTTP/1.1\r\n"},
		{[]string{"P", "UT / HTTP/1.1\r\n"}, false, "PUT / HTTP/1.1\r\n"},
		{[]string{"GET / HTTP/1.0\r\n\r\n"}, false, "GET / HTTP/1.0\r\n\r\n"},
	} {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.send {
			conn.Write([]byte(s))
			time.Sleep(10 * time.Millisecond)
		}
		from := rt.H1
		if c.toH2 {
			from = rt.H2
		}
		got, err := from.Accept()
		if err != nil {
			t.Fatal(err)
		}
		got.SetReadDeadline(time.Now().Add(2 * time.Second))
		buf := make([]byte, len(c.expect))
		n := 0
		for n < len(buf) {
			k, err := got.Read(buf[n:])
			n += k
			if err != nil {
				break
			}
		}
		if string(buf[:n]) != c.expect {
			t.Errorf("%q: the server read %q", c.send, buf[:n])
		}
		got.Close()
		conn.Close()
	}
	// A client that sends nothing is dropped after the sniff timeout.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rt2 := newRouter(ln2, 100*time.Millisecond, 64, 2)
	go rt2.serve()
	defer rt2.Close()
	conn, err := net.Dial("tcp", ln2.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil || strings.Contains(err.Error(), "timeout") {
		t.Errorf("silent client: read %v; want the router to close the connection", err)
	}
}

// TestRouterBoundsConnections: with a cap of 2 connections a third is
// not taken until one closes, and of HTTP/2 connections (cap 1) a second
// is closed at once.
func TestRouterBoundsConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rt := newRouter(ln, 5*time.Second, 2, 1)
	go rt.serve()
	defer rt.Close()
	dial := func(first string) net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(first))
		return c
	}
	accept := func(l *subListener) net.Conn {
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := dial("GET / HTTP/1.1\r\n"), dial("GET / HTTP/1.1\r\n")
	defer a.Close()
	defer b.Close()
	sa, sb := accept(rt.H1), accept(rt.H1)
	third := dial("GET /3 HTTP/1.1\r\n")
	defer third.Close()
	got := make(chan net.Conn, 1)
	go func() {
		if c, err := rt.H1.Accept(); err == nil {
			got <- c
		}
	}()
	select {
	case <-got:
		t.Fatal("a third connection was taken with 2 open and a cap of 2")
	case <-time.After(200 * time.Millisecond):
	}
	sa.Close()
	s3 := <-got
	buf := make([]byte, 6)
	if _, err := io.ReadFull(s3, buf); err != nil || string(buf) != "GET /3" {
		t.Errorf("third connection read %q, %v", buf, err)
	}
	s3.Close()
	sb.Close()

	h1 := dial(http2Preface)
	defer h1.Close()
	s1 := accept(rt.H2)
	defer s1.Close()
	h2 := dial(http2Preface)
	defer h2.Close()
	h2.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := h2.Read(make([]byte, 1)); err == nil || strings.Contains(err.Error(), "timeout") {
		t.Errorf("second HTTP/2 connection over a cap of 1: read %v, want it closed", err)
	}
}
