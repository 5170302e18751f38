package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/errkind"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/media"
	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Error kinds: every failed call is an isError result that gives one of
// these in its text ("[error kind: ...]") and in its _meta (ErrorInfo).
const (
	KindInvalidInput = errkind.InvalidInput // the arguments break the schema or a rule
	KindBadRequest   = errkind.BadRequest   // 400, 422 and other 4xx
	KindUnauthorized = errkind.Unauthorized // 401, or no verified caller where one is needed
	KindForbidden    = errkind.Forbidden    // 403, a missing scope, another caller's handle
	KindNotFound     = errkind.NotFound     // 404, 410, an unknown or expired handle
	KindConflict     = errkind.Conflict     // 409, 412
	KindRateLimited  = errkind.RateLimited  // 429, or this server's per-caller limit
	KindUnavailable  = errkind.Unavailable  // 503, or this server is saturated or stopping
	KindUpstream     = errkind.Upstream     // other 5xx
	KindTimeout      = errkind.Timeout      // no answer in time (also 408, 504)
	KindConnection   = errkind.Connection   // refused, reset, DNS
	KindBadResponse  = errkind.BadResponse  // invalid JSON, HTML instead of data, off the output schema
	KindTooLarge     = errkind.TooLarge     // request, response or result over a size limit, 413
	KindCanceled     = errkind.Canceled     // the client cancelled the call
	KindDeclined     = errkind.Declined     // the user declined or dismissed a form
	KindNeedsUser    = errkind.NeedsUser    // the user must act and this client cannot ask
	KindInternal     = errkind.Internal     // a fault inside this server (a hand-written tool failed)
)

const (
	maxDetailRunes     = 500
	maxFieldErrors     = 8
	retryAfterUnknown  = -1
	retryAfterTooLong  = 1 << 30
	defaultRetryAfterS = retryAfterUnknown
)

// callError is one failed call: what the model reads and what the call
// record and metrics count.
type callError struct {
	kind      string
	status    int // upstream HTTP status, 0 when none
	retryable bool
	// retryAfter is the upstream's Retry-After in seconds, or
	// retryAfterUnknown.
	retryAfter int
	// msg says what went wrong, the rule, and what to do next.
	msg string
	// code is the upstream's own error code, when the body had one.
	code string
	// protocol makes the error a JSON-RPC error (-32602) rather than a
	// tool result: a field only the client sends (requestState) is bad.
	protocol bool
}

func (e *callError) Error() string { return e.kind + ": " + e.msg }

// ErrorMetaKey is the _meta key under which an error result carries its
// facts (ErrorInfo) for client applications.
const ErrorMetaKey = "oa2mcp/error"

// ErrorInfo is the machine-readable form of a failed call, sent in the
// result's _meta under ErrorMetaKey.
type ErrorInfo struct {
	Kind              string `json:"kind"`
	Status            int    `json:"status,omitempty"`
	Code              string `json:"code,omitempty"`
	Retryable         bool   `json:"retryable"`
	RetryAfterSeconds *int   `json:"retryAfterSeconds,omitempty"`
}

// result renders the error: the message and a summary line as text (what
// the model reads), and the same facts in _meta. It carries no
// structuredContent: a strict client (the TypeScript SDK's) checks any
// structuredContent against the tool's outputSchema, errors included, and
// an error envelope would break it (see docs/runtime.md).
func (e *callError) result() *mcp.CallToolResult {
	var sb strings.Builder
	sb.Grow(len(e.msg) + 80)
	sb.WriteString(e.msg)
	sb.WriteString("\n[error kind: ")
	sb.WriteString(e.kind)
	if e.status != 0 {
		sb.WriteString("; HTTP ")
		sb.WriteString(strconv.Itoa(e.status))
	}
	if e.retryable {
		sb.WriteString("; retryable")
		if e.retryAfter >= 0 {
			sb.WriteString(" after ")
			sb.WriteString(strconv.Itoa(e.retryAfter))
			sb.WriteString(" s")
		}
	} else {
		sb.WriteString("; not retryable unchanged")
	}
	sb.WriteString("]")
	info := ErrorInfo{Kind: e.kind, Status: e.status, Code: e.code, Retryable: e.retryable}
	if e.retryAfter >= 0 {
		ra := e.retryAfter
		info.RetryAfterSeconds = &ra
	}
	res := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: sb.String()}},
		IsError: true,
	}
	res.Meta = mcp.Meta{ErrorMetaKey: info}
	return res
}

func inputFailure(msg string) *callError {
	return &callError{kind: KindInvalidInput, retryAfter: retryAfterUnknown, msg: msg}
}

func ensurePeriod(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// upstreamError maps a non-2xx response onto a callError that names the
// status, quotes the upstream's own explanation (problem+json detail,
// field errors, common {error:{message}} shapes, an HTML page's title) and
// says what to do.
func (s *Server) upstreamError(bt *boundTool, op *compiledOp, args map[string]any, resp *http.Response, b *upstreamBody) *callError {
	code := resp.StatusCode
	e := &callError{status: code, retryAfter: retryAfterUnknown}
	d := describeErrorBody(b)
	e.code = d.code
	var sb strings.Builder
	fmt.Fprintf(&sb, "The API refused the call of %s: HTTP %d %s.", bt.spec.Name, code, http.StatusText(code))
	if d.message != "" {
		fmt.Fprintf(&sb, " Upstream message: %s", ensurePeriod(d.message))
	}
	if len(d.fields) > 0 {
		sb.WriteString(" Field errors: ")
		sb.WriteString(strings.Join(d.fields, "; "))
		sb.WriteString(".")
	}
	if secs, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		e.retryAfter = secs
	}
	guidance := s.statusGuidance(bt, op, args, e, len(d.fields) > 0, d.message != "")
	if o := s.overrideMessage(bt, code, d.code); o != "" {
		guidance = o
	}
	sb.WriteString(" ")
	sb.WriteString(guidance)
	e.msg = s.creds.redact(sb.String())
	return e
}

// overrideMessage finds an ErrorMessages entry: the tool's first, by
// upstream code, exact status, then status class.
func (s *Server) overrideMessage(bt *boundTool, status int, code string) string {
	for _, m := range []map[string]string{bt.spec.ErrorMessages, s.spec.ErrorMessages} {
		if len(m) == 0 {
			continue
		}
		if code != "" {
			if v := m[code]; v != "" {
				return v
			}
		}
		if v := m[strconv.Itoa(status)]; v != "" {
			return v
		}
		if v := m[strconv.Itoa(status/100)+"xx"]; v != "" {
			return v
		}
	}
	return ""
}

// statusGuidance sets e's kind and retryability and returns the sentence
// saying what to do next.
func (s *Server) statusGuidance(bt *boundTool, op *compiledOp, args map[string]any, e *callError, hasFields, explained bool) string {
	code := e.status
	e.kind = errkind.ForStatus(code)
	switch e.kind {
	case KindUnauthorized, KindForbidden:
		return s.authGuidance(op, code)
	case KindNotFound:
		return s.notFoundGuidance(bt, op, args, explained)
	case KindRateLimited:
		e.retryable = true
		return "Rate limit exceeded. " + retryPhrase(e.retryAfter, "Wait a little and retry later; do not call again in a tight loop.")
	case KindUnavailable:
		e.retryable = true
		return "The API is temporarily unavailable. " + retryPhrase(e.retryAfter, "Retry later.")
	case KindTimeout:
		e.retryable = true
		return "The API timed out. You may retry once later; if the call changes data, check first whether it took effect."
	case KindConflict:
		return "The request conflicts with the current state of the resource (e.g. it already exists or was changed meanwhile): fetch the current state, adjust the arguments, then call again. Do not retry unchanged."
	case KindTooLarge:
		return "The request is too large for the API: send less data. Do not retry unchanged."
	case KindUpstream:
		e.retryable = true
		return "This is a fault on the API's side, not in your arguments. You may retry later; if it persists, tell the user the service is failing."
	}
	if hasFields {
		return "The API rejected the arguments: fix the fields named above, then call again. Do not retry unchanged."
	}
	return "The API rejected the arguments: fix them according to the message above before calling again. Do not retry unchanged."
}

// notFoundGuidance names the inputs that held the identifiers (the path
// parameters), as the model sent them, and the tools that can find the
// right value.
//
// When the API explained itself, its message names what is missing (a
// 404 may be about something no input holds, such as the signed-in
// user), so the guidance defers to it instead of blaming an input.
func (s *Server) notFoundGuidance(bt *boundTool, op *compiledOp, args map[string]any, explained bool) string {
	var ids, names []string
	for _, in := range notFoundArgs(op, args) {
		ids = append(ids, strconv.Quote(in.name)+" = "+jsonschema.ShowValue(in.value))
		names = append(names, in.name)
	}
	lookup := s.lookupTools(bt, names)
	hint := ""
	if len(lookup) > 0 {
		hint = " (look it up with " + strings.Join(lookup, " or ") + " if unsure)"
	}
	switch {
	case explained && len(ids) == 0:
		return "The API's message says what it did not find. Do not retry unchanged; tell the user if only they can fix it."
	case explained:
		return fmt.Sprintf("The API's message says what it did not find. This call named %s; if that is what is missing, check %s%s. Do not retry unchanged.", strings.Join(ids, ", "), pluralIt(len(ids)), hint)
	case len(ids) == 0:
		return "The API has nothing at this address: the server's base URL may be wrong, or the resource was removed. Do not retry unchanged; tell the user if it persists."
	}
	what := "the identifier"
	if len(ids) > 1 {
		what = "the identifiers"
	}
	return fmt.Sprintf("Nothing exists for %s %s: check %s%s. Do not retry unchanged.", what, strings.Join(ids, ", "), pluralIt(len(ids)), hint)
}

// namedValue is a tool input as the model sent it.
type namedValue struct {
	name  string
	value any
}

// notFoundArgs finds the inputs that named what was not found: the path
// parameters, else the query and body inputs whose names say they are
// identifiers (order_id, customerId).
func notFoundArgs(op *compiledOp, args map[string]any) []namedValue {
	var ids []namedValue
	add := func(arg string, idOnly bool) {
		v, ok := args[arg]
		name := op.inputName(arg)
		if ok && name != "" && (!idOnly || looksLikeID(name)) {
			ids = append(ids, namedValue{name, v})
		}
	}
	for _, p := range op.pathParams {
		add(p.Arg, false)
	}
	if len(ids) > 0 {
		return ids
	}
	for _, p := range op.query {
		add(p.Arg, true)
	}
	if op.body != nil {
		for _, f := range op.body.Fields {
			add(f.Arg, true)
		}
	}
	return ids
}

// looksLikeID reports whether an input name names an identifier.
func looksLikeID(name string) bool {
	n := strings.ToLower(name)
	return n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID")
}

// lookupTools names up to two read-only sibling tools that find or list
// things, for messages that tell the model where to find a valid value.
//
// Only tools about the same thing count: one whose name holds the noun of
// an input that was not found (appointment for appointment_id), so a
// hint never sends the model to an unrelated list.
func (s *Server) lookupTools(bt *boundTool, inputs []string) []string {
	var nouns []string
	for _, in := range inputs {
		if n := idNoun(in); n != "" {
			nouns = append(nouns, n)
		}
	}
	var out []string
	for _, t := range s.spec.Tools {
		if t.Name == bt.spec.Name || !t.ReadOnly || !namesAny(t.Name, nouns) {
			continue
		}
		for _, w := range []string{"find", "list", "search", "query"} {
			if strings.Contains(t.Name, w) {
				out = append(out, t.Name)
				break
			}
		}
		if len(out) == 2 {
			break
		}
	}
	return out
}

// idNoun is the thing an identifier input names, as a search term:
// "appointment" for appointment_id, appointmentId or appointment; "" for
// a bare id.
func idNoun(input string) string {
	var words []string
	for _, w := range search.SearchTerms(input) {
		switch w {
		case "id", "ids", "no", "number", "key", "uuid", "code", "ref":
		default:
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return ""
	}
	return words[len(words)-1]
}

// namesAny reports whether a tool name holds one of the nouns, compared
// as search terms (so plurals meet: appointments, appointment).
func namesAny(tool string, nouns []string) bool {
	terms := search.SearchTerms(tool)
	for _, n := range nouns {
		if slices.Contains(terms, n) {
			return true
		}
	}
	return false
}

func pluralIt(n int) string {
	if n > 1 {
		return "those values"
	}
	return "that value"
}

func (s *Server) authGuidance(op *compiledOp, code int) string {
	what := "The API refused the credentials (they are missing, wrong or expired)"
	if code == http.StatusForbidden {
		what = "The configured credentials lack permission for this operation"
	}
	switch {
	case op.auth == nil:
	case len(op.auth.creds) > 0:
		// Name what the call sent: with several schemes configured, the
		// variables of another one would send the user to the wrong place.
		in := ""
		if names := op.auth.usedNames(); len(names) > 0 {
			in = " (in " + strings.Join(names, " and ") + ")"
		}
		what = "The API refused the credentials" + in + ": they are wrong or expired"
		if code == http.StatusForbidden {
			what = "The configured credentials" + in + " lack permission for this operation"
		}
	case len(op.auth.options) > 0:
		what = "No API credentials are configured (set " + strings.Join(op.auth.options, ", or ") + " in the server's environment)"
	}
	return what + ". Do not retry; tell the user that access to the API needs attention."
}

// maxRetryAfterSeconds bounds any Retry-After the upstream sends (one
// day): a larger delay, a huge integer or a far-future date is reported
// as this many seconds, never overflowing into an immediate retry.
const maxRetryAfterSeconds = 24 * 60 * 60

// parseRetryAfter reads a Retry-After header: delay seconds or an
// HTTP-date, clamped to [0, maxRetryAfterSeconds] (past dates give 0).
// Anything else (negative numbers, fractions, garbage) is no Retry-After.
func parseRetryAfter(h string, now time.Time) (int, bool) {
	h = strings.TrimSpace(h)
	if h == "" || len(h) > 64 {
		return 0, false
	}
	if textkit.IsDigits(h) {
		n, err := strconv.ParseInt(h, 10, 64)
		if err != nil || n > maxRetryAfterSeconds {
			return maxRetryAfterSeconds, true // only overflow fails on digits
		}
		return int(n), true
	}
	if t, err := http.ParseTime(h); err == nil {
		d := t.Sub(now)
		switch {
		case d <= 0:
			return 0, true
		case d >= maxRetryAfterSeconds*time.Second:
			return maxRetryAfterSeconds, true
		}
		return int((d + time.Second - 1) / time.Second), true
	}
	return 0, false
}

// retryPhrase renders "Retry after N seconds." or fallback.
func retryPhrase(secs int, fallback string) string {
	switch {
	case secs < 0:
		return fallback
	case secs == 1:
		return "Retry after 1 second."
	}
	return fmt.Sprintf("Retry after %d seconds.", secs)
}

// errorDescription is what an error body says.
type errorDescription struct {
	message string
	fields  []string // "name": reason
	code    string
}

// describeErrorBody extracts the upstream's explanation from common error
// body shapes; HTML pages are reduced to their <title>.
func describeErrorBody(b *upstreamBody) errorDescription {
	data := b.data
	trimmed := strings.TrimSpace(string(data))
	if trimmed == "" {
		return errorDescription{}
	}
	if media.IsJSON(b.mediaType) || trimmed[0] == '{' || trimmed[0] == '[' {
		var v any
		if json.Unmarshal(data, &v) == nil {
			d := errorDescription{message: jsonErrorDetail(v), fields: fieldErrors(v), code: errorCode(v)}
			if d.message == "" && len(d.fields) == 0 {
				d.message = compactJSONText(data)
			}
			d.message = clipDetail(d.message)
			return d
		}
	}
	if b.mediaType == "text/html" || looksLikeHTML(trimmed) {
		return errorDescription{message: htmlSummary(trimmed)}
	}
	return errorDescription{message: clipDetail(strings.Join(strings.Fields(trimmed), " "))}
}

// errorDetail is describeErrorBody's message (kept for callers that need
// only the text).
func errorDetail(b *upstreamBody) string { return describeErrorBody(b).message }

func htmlSummary(s string) string {
	if t := htmlTitle(s); t != "" {
		return "an HTML error page titled " + strconv.Quote(clipDetail(t))
	}
	return "an HTML error page (not shown)"
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
		if fieldOf(errs[0]) == "" {
			return jsonErrorDetail(errs[0])
		}
	}
	return ""
}

// fieldErrors collects per-field problems from problem+json "errors" and
// "invalid-params" (RFC 9457/7807), Spring and Bean Validation
// ("errors"/"violations" with field), Google ("details[].fieldViolations")
// and Rails/Laravel ({"errors":{"field":["msg"]}}).
func fieldErrors(v any) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	add := func(field, reason string) {
		field, reason = strings.TrimSpace(field), strings.TrimSpace(reason)
		if field == "" || reason == "" || len(out) >= maxFieldErrors {
			return
		}
		out = append(out, strconv.Quote(field)+": "+textkit.ClipRunes(reason, 160))
	}
	list := func(x any) {
		arr, _ := x.([]any)
		for _, it := range arr {
			if f := fieldOf(it); f != "" {
				add(f, reasonOf(it))
			}
		}
	}
	for _, key := range []string{"errors", "invalid-params", "invalid_params", "invalidParams", "violations", "fieldErrors", "field_errors", "fieldViolations"} {
		switch x := m[key].(type) {
		case []any:
			list(x)
		case map[string]any:
			for _, k := range textkit.SortedKeys(x) {
				switch r := x[k].(type) {
				case string:
					add(k, r)
				case []any:
					var rs []string
					for _, e := range r {
						if s, ok := e.(string); ok {
							rs = append(rs, s)
						}
					}
					add(k, strings.Join(rs, ", "))
				}
			}
		}
	}
	if details, ok := m["details"].([]any); ok {
		list(details)
		for _, d := range details {
			if dm, ok := d.(map[string]any); ok {
				list(dm["fieldViolations"])
			}
		}
	}
	if e, ok := m["error"].(map[string]any); ok && len(out) == 0 {
		out = fieldErrors(e)
	}
	return out
}

// fieldOf reads the field an error item names; JSON pointers lose "#/".
func fieldOf(it any) string {
	m, ok := it.(map[string]any)
	if !ok {
		return ""
	}
	for _, key := range []string{"field", "name", "param", "parameter", "property", "propertyPath", "pointer", "path", "loc"} {
		switch x := m[key].(type) {
		case string:
			if x = strings.TrimPrefix(strings.TrimPrefix(x, "#"), "/"); x != "" {
				return strings.ReplaceAll(x, "/", ".")
			}
		case []any: // FastAPI: "loc": ["body", "age"]
			var parts []string
			for _, p := range x {
				if s := scalarString(p); s != "body" && s != "query" && s != "path" {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, ".")
			}
		}
	}
	if src, ok := m["source"].(map[string]any); ok { // JSON:API
		return fieldOf(src)
	}
	return ""
}

func reasonOf(it any) string {
	m, _ := it.(map[string]any)
	for _, key := range []string{"reason", "message", "detail", "description", "defaultMessage", "msg", "title", "code"} {
		if s, ok := m[key].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return "is invalid"
}

var codeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.:\-]{1,64}$`) })

// errorCode finds an upstream error code: "code", "error.code",
// "errorCode", "error" (when it is a short identifier) or "type".
func errorCode(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	pick := func(x any) string {
		s := scalarString(x)
		if _, isObj := x.(map[string]any); isObj || !codeRE().MatchString(s) {
			return ""
		}
		return s
	}
	if e, ok := m["error"].(map[string]any); ok {
		if c := pick(e["code"]); c != "" {
			return c
		}
		if c := pick(e["type"]); c != "" {
			return c
		}
	}
	for _, key := range []string{"code", "errorCode", "error_code", "error"} {
		if x, ok := m[key]; ok && x != nil {
			if c := pick(x); c != "" {
				return c
			}
		}
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
	head := strings.ToLower(strings.TrimSpace(s[:min(len(s), 512)]))
	return strings.HasPrefix(head, "<!doctype html") || strings.Contains(head, "<html") || strings.HasPrefix(head, "<head") || strings.HasPrefix(head, "<body")
}

var titleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`) })

func htmlTitle(s string) string {
	m := titleRE().FindStringSubmatch(s[:min(len(s), 64<<10)])
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(m[1])), " ")
}

// clipDetail shortens an upstream's words for a message, without the
// control characters and invalid UTF-8 a hostile body may hold.
func clipDetail(s string) string { return textkit.ClipRunes(printable(s), maxDetailRunes) }

// printable drops control characters and replaces invalid UTF-8.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// transportError maps a failure to get a (complete) response onto a
// callError. The URL is never echoed: it may carry a query key.
func (s *Server) transportError(ctx context.Context, bt *boundTool, err error, status int, midBody bool) *callError {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	host := s.baseHost
	e := &callError{status: status, retryAfter: retryAfterUnknown, retryable: true}
	var nerr net.Error
	var dnsErr *net.DNSError
	var tooLarge *maxBytesError
	during := "before a response arrived"
	if midBody {
		during = "while the response was being received"
	}
	if re, ok := asRedirectError(err); ok {
		return s.redirectFailure(bt, re)
	}
	switch {
	case errors.As(err, &tooLarge):
		e.kind, e.retryable = KindTooLarge, false
		e.msg = fmt.Sprintf("The API's answer to %s is larger than this server's limit of %s, so it is not shown. If the call changes data, it did take effect. Narrow the request (filters, a smaller page size, fewer fields) and call again.", bt.spec.Name, textkit.ByteSize(tooLarge.limit))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()):
		e.kind = KindTimeout
		e.msg = fmt.Sprintf("The API did not answer %s within %s (timeout) %s. It may be slow or overloaded: retry once later. If the call changes data, check first whether it took effect before retrying.", bt.spec.Name, bt.timeout, during)
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		e.kind, e.retryable = KindCanceled, false
		e.msg = "The call was cancelled by the client before the API answered."
	case errors.Is(err, syscall.ECONNREFUSED):
		e.kind = KindConnection
		e.msg = fmt.Sprintf("Could not connect to the API at %s (connection refused): the service is down or the server's base URL is wrong. Retry later; if it persists, tell the user the API is unreachable.", host)
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		e.kind = KindConnection
		e.msg = fmt.Sprintf("The connection to the API at %s broke %s (%s). Retry once; if the call changes data, check first whether it took effect.", host, during, connWord(err))
	case errors.As(err, &dnsErr):
		e.kind, e.retryable = KindConnection, false
		e.msg = fmt.Sprintf("The API host %s could not be resolved (DNS): the server's base URL is probably wrong. Do not retry; tell the user the API is unreachable.", host)
	default:
		e.kind = KindConnection
		e.msg = fmt.Sprintf("The call to the API at %s failed %s (%v). Retry once later; if it persists, tell the user the API is unreachable.", host, during, err)
	}
	e.msg = s.creds.redact(e.msg)
	return e
}

func connWord(err error) string {
	if errors.Is(err, syscall.ECONNRESET) {
		return "connection reset"
	}
	if errors.Is(err, syscall.EPIPE) {
		return "broken pipe"
	}
	return "unexpected end of data"
}

// badResponse is a 2xx whose body is not what a data API sends.
func (s *Server) badResponse(bt *boundTool, status int, b *upstreamBody) *callError {
	e := &callError{kind: KindBadResponse, status: status, retryAfter: retryAfterUnknown}
	trimmed := strings.TrimSpace(string(b.data[:min(len(b.data), 4096)]))
	switch {
	case b.mediaType == "text/html" || looksLikeHTML(trimmed):
		e.msg = fmt.Sprintf("The API answered %s with %s instead of data (HTTP %d, %s): the server's base URL probably points at a website, a login page or a proxy. Do not retry; tell the user to check the API's base URL%s.",
			bt.spec.Name, htmlSummary(string(b.data)), status, mediaOr(b.mediaType), s.baseURLHint())
	default:
		pos := jsonErrorOffset(b.data)
		e.msg = fmt.Sprintf("The API answered %s with a body declared as %s that is not valid JSON (broken at byte %d of %d), so it cannot be used. Retry once later; if it persists, tell the user the API is returning malformed data.",
			bt.spec.Name, mediaOr(b.mediaType), pos, len(b.data))
		e.retryable = true
	}
	e.msg = s.creds.redact(e.msg)
	return e
}

// badMultipart is a 2xx multipart body that does not parse: cut short,
// without a boundary or with more parts than this server takes.
func (s *Server) badMultipart(bt *boundTool, status int, b *upstreamBody) *callError {
	return &callError{kind: KindBadResponse, status: status, retryAfter: retryAfterUnknown, retryable: true,
		msg: fmt.Sprintf("The API answered %s with a %s body of %s that is incomplete or malformed (no boundary, cut short, or more than %d parts), so it cannot be used. Retry once later; if it persists, tell the user the API is returning malformed data.",
			bt.spec.Name, b.mediaType, countBytes(len(b.data)), maxParts)}
}

// mislabelled is a 2xx body declared as an image or audio whose bytes are
// text: an error page or a JSON error sent with the wrong type.
func (s *Server) mislabelled(bt *boundTool, status int, b *upstreamBody, p mediaPart) *callError {
	return &callError{kind: KindBadResponse, status: status, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("The API answered %s with a body declared as %s whose bytes are text, not %s, so it is not shown. Tell the user the API is answering unexpectedly; do not retry unchanged.",
			bt.spec.Name, b.mediaType, strings.SplitN(p.mediaType, "/", 2)[0])}
}

func mediaOr(mt string) string {
	if mt == "" {
		return "no content type"
	}
	return mt
}

func (s *Server) baseURLHint() string {
	return " ($" + baseURLEnv(s.spec) + " or --base-url)"
}

func jsonErrorOffset(data []byte) int64 {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	return int64(len(data))
}

// outputMismatch describes a response that fails the tool's OutputSchema.
func outputMismatch(bt *boundTool, v *jsonschema.Validator) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "The API's answer to %s does not have the shape this tool promises", bt.spec.Name)
	for i, text := range v.Problems("the response", 3) {
		sb.WriteString(i2sep(i))
		sb.WriteString(text)
	}
	sb.WriteString(".")
	return sb.String()
}

func i2sep(i int) string {
	if i == 0 {
		return ": "
	}
	return "; "
}
