package fastpath

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionWaitsForAttach: the SDK starts reading before Connect
// returns the session, so a tools/call line can reach the engine before
// Attach. It must wait for the session, not pass the call to the SDK
// unprobed (a client's first calls then all missed the fast path when
// Connect returned late); when the engine's context ends first, as when
// Connect fails, the wait ends with no session.
func TestSessionWaitsForAttach(t *testing.T) {
	ss := connectedSession(t)
	f := NewStdio(context.Background(), idleHost{}, true, nil, io.Discard)
	got := make(chan *mcp.ServerSession, 1)
	go func() { got <- f.session() }()
	select {
	case <-got:
		t.Fatal("session returned before Attach")
	case <-time.After(50 * time.Millisecond):
	}
	f.Attach(ss)
	select {
	case s := <-got:
		if s != ss {
			t.Fatalf("session = %p, want the attached %p", s, ss)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("session still waits after Attach")
	}

	ctx, cancel := context.WithCancel(context.Background())
	g := NewStdio(ctx, idleHost{}, true, nil, io.Discard)
	cancel()
	if s := g.session(); s != nil {
		t.Fatalf("session = %p after the context ended, want nil", s)
	}
}

// connectedSession is a real go-sdk server session on an in-memory pair.
func connectedSession(t *testing.T) *mcp.ServerSession {
	t.Helper()
	_, st := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ss
}

// idleHost is a host with no tools, never paused.
type idleHost struct{}

func (idleHost) Tool(string, bool) Handler { return nil }
func (idleHost) Paused() bool              { return false }
func (idleHost) Enter()                    {}
func (idleHost) Leave()                    {}
func (idleHost) Impl() *mcp.Implementation { return &mcp.Implementation{Name: "s", Version: "1"} }
func (idleHost) Logger() *slog.Logger      { return slog.New(slog.DiscardHandler) }
