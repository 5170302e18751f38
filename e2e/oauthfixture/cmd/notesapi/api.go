package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sync"
	"time"
)

// notesAPI serves /v1/notes for the subject of each request's token.
type notesAPI struct {
	verify *verifier
	notes  *noteStore
	log    *requestLog
}

type note struct {
	ID      string    `json:"id"`
	Owner   string    `json:"owner"`
	Title   string    `json:"title"`
	Body    string    `json:"body"`
	Created time.Time `json:"created"`
}

var noteID = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

func (a *notesAPI) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(spec)
	})
	mux.HandleFunc("GET /v1/notes", a.authed("notes:read", func(c caller, w http.ResponseWriter, _ *http.Request) int {
		return reply(w, 200, map[string]any{"owner": c.subject, "notes": a.notes.list(c.subject)})
	}))
	mux.HandleFunc("POST /v1/notes", a.authed("notes:write", func(c caller, w http.ResponseWriter, r *http.Request) int {
		var in struct {
			Title string `json:"title"`
			Body  string `json:"body"`
		}
		dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil || in.Title == "" {
			return reply(w, 400, map[string]string{"error": "invalid_request", "error_description": "want {title, body}"})
		}
		return reply(w, 201, a.notes.add(c.subject, in.Title, in.Body))
	}))
	mux.HandleFunc("GET /v1/notes/{id}", a.authed("notes:read", func(c caller, w http.ResponseWriter, r *http.Request) int {
		id := r.PathValue("id")
		n, ok := a.notes.get(c.subject, id)
		if !noteID.MatchString(id) || !ok {
			return reply(w, 404, map[string]string{"error": "not_found", "error_description": "you have no note " + id})
		}
		return reply(w, 200, n)
	}))
	return mux
}

// authed verifies the token and the scope before h, and logs the request
// whatever the outcome.
func (a *notesAPI) authed(scope string, h func(caller, http.ResponseWriter, *http.Request) int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := a.verify.check(r.Context(), r, scope)
		status := 0
		if err != nil {
			challenge := fmt.Sprintf(`Bearer error=%q, error_description=%q`, err.code, err.description)
			if err.scope != "" {
				challenge += fmt.Sprintf(`, scope=%q`, err.scope)
			}
			w.Header().Set("WWW-Authenticate", challenge)
			status = reply(w, err.status, map[string]string{"error": err.code, "error_description": err.description})
		} else {
			status = h(c, w, r)
		}
		a.log.write(r, c.subject, status)
	}
}

func reply(w http.ResponseWriter, status int, v any) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
	return status
}

// noteStore keeps each subject's notes; a subject's first request finds
// one welcome note, so a list shows whose data it is.
type noteStore struct {
	mu sync.Mutex
	by map[string][]note
}

func newNoteStore() *noteStore { return &noteStore{by: map[string][]note{}} }

func (s *noteStore) seed(sub string) {
	if _, ok := s.by[sub]; !ok {
		s.by[sub] = []note{{ID: "welcome-" + sub, Owner: sub, Title: "Welcome, " + sub, Body: "This note belongs to " + sub + ".", Created: time.Now().UTC()}}
	}
}

func (s *noteStore) list(sub string) []note {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seed(sub)
	return append([]note(nil), s.by[sub]...)
}

func (s *noteStore) get(sub, id string) (note, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seed(sub)
	for _, n := range s.by[sub] {
		if n.ID == id {
			return n, true
		}
	}
	return note{}, false
}

func (s *noteStore) add(sub, title, body string) note {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seed(sub)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	n := note{ID: hex.EncodeToString(b), Owner: sub, Title: title, Body: body, Created: time.Now().UTC()}
	s.by[sub] = append(s.by[sub], n)
	return n
}

// requestLog appends one JSON line per request; the Authorization header
// is stored only as its SHA-256, so the log holds no usable token.
type requestLog struct {
	mu sync.Mutex
	f  *os.File
}

func openRequestLog(path string) (*requestLog, error) {
	if path == "" {
		return &requestLog{}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	return &requestLog{f: f}, err
}

func (l *requestLog) write(r *http.Request, subject string, status int) {
	if l.f == nil {
		return
	}
	sum := sha256.Sum256([]byte(r.Header.Get("Authorization")))
	line, _ := json.Marshal(map[string]any{"method": r.Method, "path": r.URL.Path,
		"authorization_sha256": hex.EncodeToString(sum[:]), "subject": subject, "status": status})
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.f.Write(append(line, '\n'))
}

func (l *requestLog) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
