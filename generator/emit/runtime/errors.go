package rt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Error kinds recorded in the per-call log record.
const (
	kindInput     = "input"
	kindClient    = "upstream_4xx"
	kindServer    = "upstream_5xx"
	kindRateLimit = "rate_limited"
	kindAuth      = "auth"
	kindTimeout   = "timeout"
	kindTransport = "transport"
	kindCanceled  = "canceled"
)

const maxDetailRunes = 500

// upstreamError maps a non-2xx response onto an isError result that names
// the status, quotes the upstream's own explanation and says what to do.
func (s *Server) upstreamError(op *compiledOp, resp *http.Response, b *upstreamBody) (*mcp.CallToolResult, string) {
	code := resp.StatusCode
	var sb strings.Builder
	fmt.Fprintf(&sb, "The API call failed: HTTP %d %s from %s.", code, http.StatusText(code), op.pathLabel)
	if d := errorDetail(b); d != "" {
		fmt.Fprintf(&sb, " Upstream message: %s", ensurePeriod(d))
	}
	guidance, kind := s.statusGuidance(op, code, resp.Header.Get("Retry-After"))
	sb.WriteString(" ")
	sb.WriteString(guidance)
	return textResult(s.creds.redact(sb.String()), true), kind
}

func ensurePeriod(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

func (s *Server) statusGuidance(op *compiledOp, code int, retryAfter string) (string, string) {
	switch {
	case code == http.StatusUnauthorized, code == http.StatusForbidden:
		return s.authGuidance(op, code), kindAuth
	case code == http.StatusNotFound || code == http.StatusGone:
		return "The resource does not exist: check the identifiers in the arguments (look them up with a list or search tool if unsure). Do not retry unchanged.", kindClient
	case code == http.StatusTooManyRequests:
		return "Rate limit exceeded. " + retryPhrase(retryAfter, "Wait a little and retry later."), kindRateLimit
	case code == http.StatusServiceUnavailable:
		return "The API is temporarily unavailable. " + retryPhrase(retryAfter, "Retry later."), kindServer
	case code == http.StatusRequestTimeout || code == http.StatusGatewayTimeout:
		return "The API timed out. You may retry once later; if the call changes data, check first whether it took effect.", kindServer
	case code == http.StatusConflict || code == http.StatusPreconditionFailed:
		return "The request conflicts with the current state of the resource: fetch the current state, adjust the arguments, then call again.", kindClient
	case code == http.StatusRequestEntityTooLarge:
		return "The request is too large: send less data. Do not retry unchanged.", kindClient
	case code >= 500:
		return "This is a fault on the API's side, not in your arguments. You may retry later; if it persists, tell the user the service is failing.", kindServer
	}
	return "The arguments were not accepted: fix them according to the message above before calling again. Do not retry unchanged.", kindClient
}

func (s *Server) authGuidance(op *compiledOp, code int) string {
	what := "The API refused the credentials"
	if code == http.StatusForbidden {
		what = "The configured credentials lack permission for this operation"
	}
	if op.auth != nil && len(op.auth.creds) == 0 && len(op.auth.needed) > 0 {
		what = "No API credentials are configured (set " + strings.Join(op.auth.needed, ", ") + " in the server's environment)"
	}
	return what + ". Do not retry; tell the user that access to the API needs attention."
}

// retryPhrase turns a Retry-After header (seconds or HTTP-date) into
// "Retry after N seconds.", or returns fallback.
func retryPhrase(h, fallback string) string {
	h = strings.TrimSpace(h)
	if h == "" {
		return fallback
	}
	secs := -1
	if n, err := strconv.Atoi(h); err == nil && n >= 0 {
		secs = n
	} else if t, err := http.ParseTime(h); err == nil {
		secs = max(int(time.Until(t).Round(time.Second)/time.Second), 0)
	}
	if secs < 0 {
		return fallback
	}
	if secs == 1 {
		return "Retry after 1 second."
	}
	return fmt.Sprintf("Retry after %d seconds.", secs)
}

// errorDetail extracts the upstream's explanation from common error body
// shapes; HTML pages are reduced to their <title>.
func errorDetail(b *upstreamBody) string {
	data := b.data
	trimmed := strings.TrimSpace(string(data))
	if trimmed == "" {
		return ""
	}
	if isJSONMedia(b.mediaType) || trimmed[0] == '{' || trimmed[0] == '[' {
		var v any
		if json.Unmarshal(data, &v) == nil {
			if d := jsonErrorDetail(v); d != "" {
				return clipDetail(d)
			}
			return clipDetail(compactJSONText(data))
		}
	}
	if b.mediaType == "text/html" || looksLikeHTML(trimmed) {
		if t := htmlTitle(trimmed); t != "" {
			return "an HTML error page titled " + strconv.Quote(clipDetail(t))
		}
		return "an HTML error page (not shown)"
	}
	return clipDetail(strings.Join(strings.Fields(trimmed), " "))
}

// jsonErrorDetail reads problem+json (title, detail), {"error":{"message"}},
// {"error":"..."}, {"message"}, {"error_description"} and {"errors":[...]}.
func jsonErrorDetail(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		if arr, ok := v.([]any); ok && len(arr) > 0 {
			return jsonErrorDetail(arr[0])
		}
		return ""
	}
	str := func(key string) string { s, _ := m[key].(string); return strings.TrimSpace(s) }
	title, detail := str("title"), str("detail")
	switch {
	case title != "" && detail != "" && !strings.Contains(detail, title):
		return title + ": " + detail
	case detail != "":
		return detail
	}
	if e, ok := m["error"].(map[string]any); ok {
		if d := jsonErrorDetail(e); d != "" {
			return d
		}
	}
	for _, key := range []string{"message", "error", "error_description", "msg", "description", "title"} {
		if s := str(key); s != "" {
			if key == "error" && str("error_description") != "" {
				return s + ": " + str("error_description")
			}
			return s
		}
	}
	if errs, ok := m["errors"].([]any); ok && len(errs) > 0 {
		if s, ok := errs[0].(string); ok {
			return s
		}
		return jsonErrorDetail(errs[0])
	}
	return ""
}

func compactJSONText(data []byte) string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return string(data)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func looksLikeHTML(s string) bool {
	head := strings.ToLower(s[:min(len(s), 256)])
	return strings.HasPrefix(head, "<!doctype html") || strings.Contains(head, "<html")
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

func htmlTitle(s string) string {
	m := titleRE.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(m[1])), " ")
}

func clipDetail(s string) string {
	if utf8.RuneCountInString(s) <= maxDetailRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxDetailRunes]) + "…"
}

// transportError maps a failure to get any response onto an isError result
// with retry guidance. The URL is never echoed: it may carry a query key.
func (s *Server) transportError(ctx context.Context, op *compiledOp, err error) (*mcp.CallToolResult, string) {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	host := s.baseHost
	var msg, kind string
	var nerr net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()):
		msg = fmt.Sprintf("The API did not answer %s within %s (timeout). It may be slow or overloaded: retry once later. If the call changes data, check first whether it took effect before retrying.", op.pathLabel, s.timeout)
		kind = kindTimeout
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		msg, kind = "The call was cancelled before the API answered.", kindCanceled
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = fmt.Sprintf("Could not connect to the API at %s (connection refused): the service is down or the server's base URL is wrong. Retry later; if it persists, tell the user the API is unreachable.", host)
		kind = kindTransport
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		msg = fmt.Sprintf("The connection to the API at %s was reset while calling %s. Retry once; if the call changes data, check first whether it took effect.", host, op.pathLabel)
		kind = kindTransport
	case errors.As(err, &dnsErr):
		msg = fmt.Sprintf("The API host %s could not be resolved (DNS): the server's base URL is probably wrong. Do not retry; tell the user the API is unreachable.", host)
		kind = kindTransport
	default:
		msg = fmt.Sprintf("The call to the API at %s failed before a response arrived (%v). Retry once later; if it persists, tell the user the API is unreachable.", host, err)
		kind = kindTransport
	}
	return textResult(s.creds.redact(msg), true), kind
}
