package aftersales

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestStateKeyAcrossReplicas: replicas sharing a Redis store start
// quietly with one request-state key, and warn at start when one has a
// random key or a key other than the one another replica published.
func TestStateKeyAcrossReplicas(t *testing.T) {
	redisURL := oa2mcptest.StartRedis(t)
	be := startBackend(t)
	start := func(key string) string {
		var logs syncBuffer
		opts := Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, HandleStoreURL: redisURL, BaseURL: be.URL, StateKey: key,
			Getenv: func(string) string { return "" },
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}
		srv, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
		return logs.String()
	}
	for _, c := range []struct {
		name, key, want string
	}{
		{"first with the key", stateKey, ""},
		{"second with the same key", stateKey, ""},
		{"a different key", "another-state-key-0123456789abcdef0123", "published a different request-state key"},
		{"back to the first key", stateKey, "published a different request-state key"},
		{"again the first key", stateKey, ""},
		{"no key", "", "random key of its own"},
	} {
		logs := start(c.key)
		if c.want == "" && logs != "" || c.want != "" && !strings.Contains(logs, c.want) {
			t.Errorf("%s: logged %q; want %q", c.name, logs, c.want)
		}
	}
}
