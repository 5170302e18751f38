package runtime

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// The Streamable HTTP listener's bounds against slow and idle peers,
// each a flag of a generated server (parseFlags); the defaults follow
// nginx's (client_header_timeout, client_body_timeout, keepalive_timeout,
// worker_connections), tightened where an MCP endpoint needs less.
const (
	// defaultReadHeaderTimeout bounds the time to send the request
	// headers.
	defaultReadHeaderTimeout = 10 * time.Second
	// defaultReadTimeout bounds the time to send a whole request, headers
	// and body (4 MiB at most); the deadline is lifted once the body is
	// in, so tool calls may take longer.
	defaultReadTimeout = 30 * time.Second
	// defaultWriteSlack is added to the longest tool timeout (and the
	// read timeout) for the default write timeout: a response is written
	// by then or the connection closes.
	defaultWriteSlack = 30 * time.Second
	// defaultIdleTimeout closes keep-alive connections without a request
	// for this long (nginx's keepalive_timeout).
	defaultIdleTimeout = 75 * time.Second
	// defaultMaxConnections bounds the open client connections; more wait
	// in the kernel's accept queue until one closes.
	defaultMaxConnections = 1024
)

// listenerConfig is how serveHTTP bounds its connections.
type listenerConfig struct {
	readHeaderTimeout, readTimeout, writeTimeout, idleTimeout time.Duration
	maxConnections                                            int
}

// validate names the first bound that is not usable.
func (c *listenerConfig) validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--http-read-header-timeout", c.readHeaderTimeout}, {"--http-read-timeout", c.readTimeout}, {"--http-idle-timeout", c.idleTimeout}} {
		if d.v <= 0 {
			return fmt.Errorf("invalid %s %s: must be positive", d.name, d.v)
		}
	}
	if c.writeTimeout < 0 {
		return fmt.Errorf("invalid --http-write-timeout %s: must be positive, or 0 for the default", c.writeTimeout)
	}
	if c.maxConnections <= 0 {
		return fmt.Errorf("invalid --http-max-connections %d: must be positive", c.maxConnections)
	}
	return nil
}

// server builds the http.Server; longestCall is the longest tool
// timeout, which the default write timeout allows for.
func (c *listenerConfig) server(h http.Handler, longestCall time.Duration) *http.Server {
	wt := c.writeTimeout
	if wt == 0 {
		wt = c.readTimeout + longestCall + defaultWriteSlack
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: c.readHeaderTimeout, ReadTimeout: c.readTimeout,
		WriteTimeout: wt, IdleTimeout: c.idleTimeout, MaxHeaderBytes: 64 << 10}
}

// limitListener accepts at most n connections at once: Accept waits for
// a slot, so excess connections cost no file descriptor of this process.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	closed    chan struct{} // closed by Close: a waiting Accept returns
	closeOnce sync.Once
}

func newLimitListener(l net.Listener, n int) *limitListener {
	return &limitListener{Listener: l, slots: make(chan struct{}, n), closed: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// slotConn gives its slot back once, at the first Close.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
