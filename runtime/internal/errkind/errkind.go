// Package errkind holds the error kinds of failed calls (the words a
// result's text and _meta report) and the rule that maps an upstream's
// status onto one; the runtime reports them and the generator documents
// them.
package errkind

import "net/http"

// The error kinds; package runtime re-exports each as Kind<Name>.
const (
	InvalidInput = "invalid_input"        // the arguments break the schema or a rule
	BadRequest   = "upstream_bad_request" // 400, 422 and other 4xx
	Unauthorized = "unauthorized"         // 401, or no verified caller where one is needed
	Forbidden    = "forbidden"            // 403, a missing scope, another caller's handle
	NotFound     = "not_found"            // 404, 410, an unknown or expired handle
	Conflict     = "conflict"             // 409, 412
	RateLimited  = "rate_limited"         // 429, or this server's per-caller limit
	Unavailable  = "unavailable"          // 503, or this server is saturated or stopping
	Upstream     = "upstream_error"       // other 5xx
	Timeout      = "timeout"              // no answer in time (also 408, 504)
	Connection   = "connection_failed"    // refused, reset, DNS
	BadResponse  = "bad_response"         // invalid JSON, HTML instead of data, off the output schema
	TooLarge     = "too_large"            // request, response or result over a size limit, 413
	Canceled     = "canceled"             // the client cancelled the call
	Declined     = "declined"             // the user declined or dismissed a form
	NeedsUser    = "needs_user"           // the user must act and this client cannot ask
	Internal     = "internal_error"       // a fault inside this server (a hand-written tool failed)
)

// ForStatus is the error kind of a call the upstream answered
// with a non-2xx status: what a result's _meta and text report.
func ForStatus(code int) string {
	switch {
	case code == http.StatusUnauthorized:
		return Unauthorized
	case code == http.StatusForbidden:
		return Forbidden
	case code == http.StatusNotFound || code == http.StatusGone:
		return NotFound
	case code == http.StatusTooManyRequests:
		return RateLimited
	case code == http.StatusServiceUnavailable:
		return Unavailable
	case code == http.StatusRequestTimeout || code == http.StatusGatewayTimeout:
		return Timeout
	case code == http.StatusConflict || code == http.StatusPreconditionFailed:
		return Conflict
	case code == http.StatusRequestEntityTooLarge:
		return TooLarge
	case code >= 500:
		return Upstream
	}
	return BadRequest
}
