// Package backend is the real HTTP backend of the conformance fixture API
// (examples/conformance/openapi.yaml): a handful of fixed answers, an
// operation that always fails, and a slow stage, enough for every fixture
// tool the official MCP conformance suite calls.
package backend

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// BasePath is where the API is served, as in the spec's servers entry.
const BasePath = "/api"

// StageDelay is how long one stage of the three-stage job takes, so that
// progress notifications are spread out as the suite expects (~50 ms).
const StageDelay = 50 * time.Millisecond

// maxBody bounds a request body.
const maxBody = 64 << 10

// NewHandler serves the fixture API under BasePath.
func NewHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+BasePath+"/greeting", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"text": "This is a simple text response for testing."})
	})
	mux.HandleFunc("GET "+BasePath+"/failure", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusConflict)
		_ = json.NewEncoder(w).Encode(map[string]any{"title": "Conflict",
			"detail": "This operation intentionally returns an error for testing."})
	})
	mux.HandleFunc("POST "+BasePath+"/stages/{stage}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("stage"))
		if err != nil || n < 1 || n > 3 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"title": "stage must be 1, 2 or 3"})
			return
		}
		select {
		case <-time.After(StageDelay):
		case <-r.Context().Done():
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"stage": n, "done": true})
	})
	mux.HandleFunc("POST "+BasePath+"/greetings", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Name string `json:"name"`
		}
		if err := decode(r, &in); err != nil || in.Name == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"title": "the body needs a non-empty name"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"text": fmt.Sprintf("Hello, %s!", in.Name)})
	})
	mux.HandleFunc("GET "+BasePath+"/regions/{region}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"text": "Hello from region " + r.PathValue("region") + "."})
	})
	mux.HandleFunc("POST "+BasePath+"/confirmations", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"text": "state-ok: the confirmed action ran."})
	})
	mux.HandleFunc("POST "+BasePath+"/schema-features", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if err := decode(r, &in); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"title": "the body must be a JSON object"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"text": fmt.Sprintf("accepted %d field(s)", len(in))})
	})
	return mux
}

func decode(r *http.Request, v any) error {
	return json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
