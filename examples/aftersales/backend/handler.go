// Package backend is a small in-memory implementation of the after-sales
// (returns and repairs) API described by examples/aftersales/openapi.yaml,
// served under the document's base path /api. It exists so that generated
// MCP servers can be exercised against a real HTTP API without network
// access.
//
// Every operation of the document is implemented with its declared paths,
// parameters and status codes. Request and success bodies are JSON; every
// error is an RFC 9457 problem (application/problem+json) with type, title,
// status and detail, and for 422 an errors array of {field, message}.
package backend

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// BasePath is the URL prefix under which every operation is mounted.
const BasePath = "/api"

// APIKeyHeader is the header carrying the service API key.
const APIKeyHeader = "X-API-Key"

// server holds the per-handler state shared by the operation handlers.
type server struct {
	db *memDB
}

// NewHandler returns an http.Handler serving the after-sales API under
// BasePath, backed by a freshly seeded in-memory store (3 customers, 7
// orders, 5 tickets with progress trails). It does not check X-API-Key;
// wrap it in RequireAPIKey for that. The handler is safe for concurrent use.
func NewHandler() http.Handler {
	return newHandler(time.Now)
}

// newHandler is NewHandler with a clock.
func newHandler(now func() time.Time) http.Handler {
	s := &server{db: newMemDB(now)}
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		method, path, _ := strings.Cut(rt.pattern, " ")
		mux.HandleFunc(method+" "+BasePath+path, rt.handle)
	}
	return problemFallback(mux)
}

// RequireAPIKey wraps h so that every request must carry key in the
// X-API-Key header; others get a 401 problem. An empty key disables the
// check.
func RequireAPIKey(h http.Handler, key string) http.Handler {
	if key == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get(APIKeyHeader)
		if subtle.ConstantTimeCompare([]byte(got), []byte(key)) != 1 {
			w.Header().Set("WWW-Authenticate", `APIKey header="`+APIKeyHeader+`"`)
			detail := "The " + APIKeyHeader + " header is missing."
			if got != "" {
				detail = "The " + APIKeyHeader + " header does not carry a valid key."
			}
			writeProblem(w, r, &Problem{Type: problemType("unauthorized"), Title: "Unauthorized",
				Status: http.StatusUnauthorized, Detail: detail})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// route binds a "METHOD /path" pattern (relative to BasePath) to a handler.
type route struct {
	pattern string
	handle  http.HandlerFunc
}

// routes lists the 9 operations of the document.
func (s *server) routes() []route {
	return []route{
		{"GET /tickets", s.listTickets},
		{"POST /tickets", s.createTicket},
		{"POST /tickets/validate", s.validateTicket},
		{"GET /tickets/{ticketId}", s.getTicket},
		{"GET /tickets/{ticketId}/progress", s.getTicketProgress},
		{"POST /tickets/{ticketId}/cancel", s.cancelTicket},
		{"POST /risk/check", s.riskCheck},
		{"POST /refunds/estimate", s.estimateRefund},
		{"GET /orders/{orderId}", s.getOrder},
	}
}

// problemFallback serves mux, but turns the mux's plain-text 404 and 405
// replies into problem details.
func problemFallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		rec := &headerRecorder{header: http.Header{}, status: http.StatusNotFound}
		h.ServeHTTP(rec, r)
		if allow := rec.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		kind, detail := "not-found", "No operation is served at "+r.URL.Path+"."
		if rec.status == http.StatusMethodNotAllowed {
			kind, detail = "method-not-allowed", "Method "+r.Method+" is not allowed here; use "+rec.header.Get("Allow")+"."
		}
		writeProblem(w, r, &Problem{Type: problemType(kind), Title: http.StatusText(rec.status), Status: rec.status, Detail: detail})
	})
}

// headerRecorder captures the status and headers a handler writes and
// discards its body.
type headerRecorder struct {
	header http.Header
	status int
}

func (h *headerRecorder) Header() http.Header         { return h.header }
func (h *headerRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerRecorder) WriteHeader(status int)      { h.status = status }

// problemBase prefixes every problem type URI.
const problemBase = "https://aftersales.example.com/problems/"

func problemType(kind string) string { return problemBase + kind }

// Problem is the Problem schema: RFC 9457 problem details. It doubles as
// the error type of the handlers.
type Problem struct {
	Type     string       `json:"type"`
	Title    string       `json:"title"`
	Status   int          `json:"status"`
	Detail   string       `json:"detail,omitempty"`
	Instance string       `json:"instance,omitempty"`
	Errors   []FieldError `json:"errors,omitempty"`
}

// FieldError is one entry of a 422 problem's errors array.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (p *Problem) Error() string { return p.Title + ": " + p.Detail }

func badRequest(detail string) *Problem {
	return &Problem{Type: problemType("bad-request"), Title: "Bad Request", Status: http.StatusBadRequest, Detail: detail}
}

func notFound(detail string) *Problem {
	return &Problem{Type: problemType("not-found"), Title: "Not Found", Status: http.StatusNotFound, Detail: detail}
}

func conflict(kind, title, detail string) *Problem {
	return &Problem{Type: problemType(kind), Title: title, Status: http.StatusConflict, Detail: detail}
}

// unprocessable is a 422 listing the failed fields; the detail joins them.
func unprocessable(kind string, errs ...FieldError) *Problem {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Field + ": " + e.Message
	}
	return &Problem{Type: problemType(kind), Title: "Unprocessable Content", Status: http.StatusUnprocessableEntity,
		Detail: strings.Join(msgs, "; "), Errors: errs}
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeProblem writes p as application/problem+json, filling in instance.
func writeProblem(w http.ResponseWriter, r *http.Request, p *Problem) {
	cp := *p
	if cp.Instance == "" {
		cp.Instance = r.URL.Path
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(cp.Status)
	_ = json.NewEncoder(w).Encode(cp)
}

// writeErr reports err, as its problem when it is one, else as a 500.
func writeErr(w http.ResponseWriter, r *http.Request, err error) {
	var p *Problem
	if !errors.As(err, &p) {
		p = &Problem{Type: problemType("internal"), Title: "Internal Server Error",
			Status: http.StatusInternalServerError, Detail: "An unexpected error occurred; retry later."}
	}
	writeProblem(w, r, p)
}
