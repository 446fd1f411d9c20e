package serve

import (
	"bytes"
	"errors"
	"net"
	"sync"
	"time"
)

// http2Preface is what every HTTP/2 client sends first (RFC 9113 section
// 3.4); gRPC is HTTP/2, and the REST clients speak HTTP/1.1.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// router splits the connections accepted on one listener between two
// listeners by their first bytes: the HTTP/2 client preface goes to H2
// (the gRPC server), anything else to H1 (the net/http server). A client
// that sends nothing is dropped after sniffTimeout. The sniffing runs on
// its own goroutine per new connection, so a slow client holds up no
// other. (A REST client speaking HTTP/2 without TLS, prior knowledge,
// would reach the gRPC server: the REST API here is HTTP/1.1.)
//
// At most maxConns connections are open at once: the router accepts no
// more until one closes (they wait in the kernel's listen backlog). Of
// those, at most maxH2 are HTTP/2; a further one is closed at once.
type router struct {
	ln     net.Listener
	H1, H2 *subListener
	// sniffTimeout bounds the wait for a new connection's first bytes.
	sniffTimeout time.Duration
	// open holds a token per open connection (cap: the most at once);
	// h2 likewise for HTTP/2 ones.
	open, h2 chan struct{}
	// quit is closed when the router stops accepting.
	quit     chan struct{}
	quitOnce sync.Once
}

func newRouter(ln net.Listener, sniffTimeout time.Duration, maxConns, maxH2 int) *router {
	return &router{ln: ln, H1: newSubListener(ln.Addr()), H2: newSubListener(ln.Addr()), sniffTimeout: sniffTimeout,
		open: make(chan struct{}, max(maxConns, 1)), h2: make(chan struct{}, max(maxH2, 1)), quit: make(chan struct{})}
}

// serve accepts connections until the listener is closed, and returns
// nil then. Other accept errors (out of file descriptors, a connection
// reset before it was accepted) are waited out, as net/http does: 5 ms
// after the first, doubling to 1 s.
func (r *router) serve() error {
	var wait time.Duration
	for {
		select {
		case r.open <- struct{}{}: // a connection may open
		case <-r.quit:
			return nil
		}
		c, err := r.ln.Accept()
		if err != nil {
			<-r.open
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			wait = min(max(2*wait, 5*time.Millisecond), time.Second)
			time.Sleep(wait)
			continue
		}
		wait = 0
		go r.route(&countedConn{Conn: c, done: r.open})
	}
}

// route reads as many bytes as it takes to tell the preface from
// anything else and hands the connection, with those bytes put back, to
// the matching listener.
func (r *router) route(c net.Conn) {
	buf := make([]byte, len(http2Preface))
	n := 0
	c.SetReadDeadline(time.Now().Add(r.sniffTimeout))
	for n < len(buf) && bytes.Equal(buf[:n], []byte(http2Preface[:n])) {
		k, err := c.Read(buf[n:])
		n += k
		if err != nil {
			c.Close()
			return
		}
	}
	c.SetReadDeadline(time.Time{})
	to := r.H1
	if bytes.Equal(buf[:n], []byte(http2Preface)) {
		select {
		case r.h2 <- struct{}{}:
		default:
			c.Close() // more HTTP/2 connections than a node serves
			return
		}
		c = &countedConn{Conn: c, done: r.h2}
		to = r.H2
	}
	to.hand(&sniffedConn{Conn: c, head: buf[:n]})
}

// countedConn gives its token back to done when it is first closed.
type countedConn struct {
	net.Conn
	done chan struct{}
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.done })
	return err
}

// stopAccepting closes the listener: serve returns, connections already
// handed on stay open.
func (r *router) stopAccepting() error {
	r.quitOnce.Do(func() { close(r.quit) })
	return r.ln.Close()
}

// Close closes the listener and both sub-listeners.
func (r *router) Close() error {
	err := r.stopAccepting()
	r.H1.Close()
	r.H2.Close()
	return err
}

// subListener is a net.Listener fed connections by a router.
type subListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newSubListener(addr net.Addr) *subListener {
	return &subListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// hand gives c to the server accepting on l, or closes it if l is closed.
func (l *subListener) hand(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.done:
		c.Close()
	}
}

// Accept implements net.Listener.
func (l *subListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener; it closes only this sub-listener (the
// router's listener stays open for the other).
func (l *subListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener: the router's address.
func (l *subListener) Addr() net.Addr { return l.addr }

// sniffedConn is a connection whose first bytes were read by the router:
// Read returns them first.
type sniffedConn struct {
	net.Conn
	head []byte
}

func (c *sniffedConn) Read(p []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(p, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}
