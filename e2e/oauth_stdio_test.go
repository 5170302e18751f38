//go:build linux && e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// stdioCallers: per_user over stdio, as docs/state-and-auth.md describes
// it. Each person runs the server over stdio with their own
// NOTES_STDIO_CALLER; the connect links point at an HTTP replica with the
// same token key and Redis store, which serves the sign-in. Each person
// connects once and sees only the account they signed in with; a stdio
// process of another caller is asked to connect and never served
// someone else's stored account; a new process of the same caller needs
// no new sign-in.
func (s perUserSetup) stdioCallers(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	redis := oa2mcptest.StartRedisServer(t)
	key := tokenKey()
	s.server.start(t, w, serverRun{addr: addr, key: key, redisURL: redis.URL})
	env := func(subject string) []string {
		return append(os.Environ(),
			"NOTES_NOTES_AUTH_CLIENT_ID="+serverClientID,
			"NOTES_NOTES_AUTH_CLIENT_SECRET="+serverSecret,
			"NOTES_PUBLIC_URL=http://"+addr,
			"NOTES_TOKEN_KEY="+key,
			"NOTES_HANDLE_STORE="+redis.URL,
			"NOTES_STDIO_CALLER="+subject+" notes:read notes:write")
	}
	for _, user := range []string{"alice", "bob"} {
		c := &caller{user: user, browser: newBrowser(user), autoConnect: true}
		cs := c.connectStdio(t, s.server.bin, w.notesURL, env("stdio-"+user))
		list := toolNamed(t, cs, "list_notes")
		if r := call(t, cs, list, nil); r.isError || r.owner() != user {
			t.Fatalf("%s over stdio, after connecting through the HTTP replica: isError=%v owner=%q: %s", user, r.isError, r.owner(), truncate(r.text, 600))
		}
		if c.askedCount() != 1 {
			t.Errorf("%s over stdio was asked to connect %d times, want once", user, c.askedCount())
		}
		// A new process of the same caller finds the stored account.
		again := &caller{user: user, browser: newBrowser(user)}
		cs2 := again.connectStdio(t, s.server.bin, w.notesURL, env("stdio-"+user))
		if r := call(t, cs2, list, nil); r.isError || r.owner() != user || again.askedCount() != 0 {
			t.Errorf("%s's second stdio process: asked %d times, isError=%v owner=%q: %s", user, again.askedCount(), r.isError, r.owner(), truncate(r.text, 600))
		}
	}
	// Another caller is asked to connect their own account, and declining
	// gets nobody's notes.
	mallory := &caller{user: "mallory", browser: newBrowser("mallory")}
	cs := mallory.connectStdio(t, s.server.bin, w.notesURL, env("stdio-mallory"))
	r := call(t, cs, toolNamed(t, cs, "list_notes"), nil)
	if !r.isError || r.owner() != "" || mallory.askedCount() != 1 {
		t.Errorf("a stdio caller who never connected: asked %d times, isError=%v owner=%q: %s", mallory.askedCount(), r.isError, r.owner(), truncate(r.text, 600))
	}
	for _, other := range []string{"alice", "bob"} {
		if strings.Contains(r.text, "welcome-"+other) {
			t.Errorf("mallory's stdio call shows %s's data: %s", other, truncate(r.text, 600))
		}
	}
}

// connectStdio starts the server binary over stdio with env and opens a
// session declaring URL-mode elicitation, answered by c.elicit.
func (c *caller) connectStdio(t *testing.T, bin, baseURL string, env []string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "notes-e2e-stdio-" + c.user, Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: c.elicit(t),
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
	})
	cmd := exec.Command(bin, "--base-url", baseURL)
	cmd.Env = env
	stderr := &lockedBuffer{}
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { stderr.WriteLine(strings.TrimRight(string(p), "\n")); return len(p), nil })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%s: connect over stdio: %v\n%s", c.user, err, truncate(stderr.String(), 4000))
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("stderr of %s's stdio server:\n%s", c.user, truncate(stderr.String(), 4000))
		}
	})
	return cs
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
