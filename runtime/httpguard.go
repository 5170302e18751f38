package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// The checks in front of the Streamable HTTP endpoint, for hostile peers:
// they run before authentication, the runtime's fast path and the SDK,
// and each refusal is an HTTP status with a JSON-RPC error body (id
// null) that names the problem.
//
//   - Origin (the transport rules: servers must validate it against DNS
//     rebinding): absent is fine (no browser); else it must be listed in
//     Options.AllowedOrigins (--allowed-origins), or be the request's own
//     origin on a loopback host (a page served by a local server itself).
//     Anything else, "null" included, gets 403.
//   - The body: at most maxHTTPBody bytes (413), read within the
//     listener's read timeout (408 when the client is too slow), then the
//     read deadline is lifted so a long tool call is not cut short.
//   - Batches: a JSON array holds at most maxHTTPBatch messages, for every
//     protocol version (400); nested arrays are left to the SDK, which
//     refuses them.

// maxHTTPBody bounds a request body: 4 MiB, as Envoy's default buffer
// limit for a request (the SDK reads bodies whole).
const maxHTTPBody = 4 << 20

// maxHTTPBatch bounds the messages of one JSON-RPC batch, as on stdio.
const maxHTTPBatch = fastpath.MaxBatch

// httpGuard serves the Origin check in front of next.
type httpGuard struct {
	origins map[string]bool // parseOrigins
	next    http.Handler
}

// parseOrigins reads the allowed origins, such as
// "https://app.example.com" (scheme, host and port, no path).
func parseOrigins(allowed []string) (map[string]bool, error) {
	origins := map[string]bool{}
	for _, o := range allowed {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, fmt.Errorf("allowed origin %q is not an origin such as https://app.example.com (scheme and host, optionally :port, nothing else)", o)
		}
		origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	return origins, nil
}

// checkOrigin is what the handler in front of the MCP endpoint does with
// the Origin header; it only needs the request.
func (g *httpGuard) checkOrigin(r *http.Request) error {
	vals := r.Header.Values("Origin")
	if len(vals) == 0 {
		return nil
	}
	if len(vals) > 1 {
		return errors.New("the request has more than one Origin header")
	}
	o := strings.ToLower(strings.TrimSpace(vals[0]))
	if g.origins[o] {
		return nil
	}
	if u, err := url.Parse(o); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" &&
		strings.EqualFold(u.Host, r.Host) && loopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("the Origin %q is not allowed to use this MCP server; a browser client's origin must be listed with --allowed-origins", vals[0])
}

// loopbackHost reports whether host (no port) names this machine.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := g.checkOrigin(r); err != nil {
		refuseHTTP(w, http.StatusForbidden, jsonrpcInvalidRequest, "Forbidden: "+err.Error())
		return
	}
	g.next.ServeHTTP(w, r)
}

// jsonrpcInvalidRequest is JSON-RPC's code for a request it refuses as a
// whole.
const jsonrpcInvalidRequest = -32600

// refuseHTTP answers a request the server will not serve, with a
// JSON-RPC error body, and closes the connection: what the peer sent
// after it is not read.
func refuseHTTP(w http.ResponseWriter, status, code int, msg string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
	stopReading(w)
}

// stopReading makes the rest of a refused request's body unread: the
// server would otherwise read on (up to 256 KiB, at the client's pace)
// before closing.
func stopReading(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// bodyGuard reads a POST body whole, within maxHTTPBody, and refuses
// oversized batches; it runs after authentication, so a caller without a
// valid token never has its body read.
type bodyGuard struct{ next http.Handler }

func (b bodyGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		b.next.ServeHTTP(w, r)
		return
	}
	if r.ContentLength > maxHTTPBody {
		refuseHTTP(w, http.StatusRequestEntityTooLarge, jsonrpcInvalidRequest, fmt.Sprintf("the request body has %d bytes; this server reads at most %s", r.ContentLength, textkit.ByteSize(maxHTTPBody)))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPBody+1))
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			refuseHTTP(w, http.StatusRequestTimeout, jsonrpcInvalidRequest, "the request body did not arrive within the server's read timeout")
			return
		}
		refuseHTTP(w, http.StatusBadRequest, jsonrpcInvalidRequest, "the request body could not be read: "+err.Error())
		return
	}
	if len(body) > maxHTTPBody {
		refuseHTTP(w, http.StatusRequestEntityTooLarge, jsonrpcInvalidRequest, "the request body is larger than "+textkit.ByteSize(maxHTTPBody)+", the most this server reads")
		return
	}
	// The body is in: the read deadline bounded the request's arrival
	// only; the call and its answer are the write timeout's.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	if n := fastpath.BatchLen(body); n > maxHTTPBatch {
		refuseHTTP(w, http.StatusBadRequest, jsonrpcInvalidRequest, fmt.Sprintf("the JSON-RPC batch holds %d messages; this server takes at most %d in one request (send them in several requests)", n, maxHTTPBatch))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	b.next.ServeHTTP(w, r)
}
