// Package backend is the real HTTP backend of the conformance fixture API
// (examples/conformance/openapi.yaml): a handful of fixed answers, an
// operation that always fails, and a slow stage, enough for every fixture
// tool the official MCP conformance suite calls.
package backend

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
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
	mux.HandleFunc("GET "+BasePath+"/media/image", func(w http.ResponseWriter, r *http.Request) {
		writeBytes(w, "image/png", pngPixel)
	})
	mux.HandleFunc("GET "+BasePath+"/media/audio", func(w http.ResponseWriter, r *http.Request) {
		writeBytes(w, "audio/wav", silentWAV())
	})
	mux.HandleFunc("GET "+BasePath+"/media/note", func(w http.ResponseWriter, r *http.Request) {
		writeBytes(w, "text/plain; charset=utf-8", []byte(noteText))
	})
	mux.HandleFunc("GET "+BasePath+"/media/binary", func(w http.ResponseWriter, r *http.Request) {
		writeBytes(w, "application/octet-stream", []byte{0x00, 0x01, 0x02, 0xfe, 0xff})
	})
	mux.HandleFunc("GET "+BasePath+"/media/bundle", func(w http.ResponseWriter, r *http.Request) {
		const boundary = "fixture-boundary"
		var b strings.Builder
		b.WriteString("--" + boundary + "\r\nContent-Type: text/plain\r\n\r\n" + noteText + "\r\n")
		b.WriteString("--" + boundary + "\r\nContent-Type: image/png\r\n\r\n" + string(pngPixel) + "\r\n")
		b.WriteString("--" + boundary + "--\r\n")
		writeBytes(w, "multipart/mixed; boundary="+boundary, []byte(b.String()))
	})
	mux.HandleFunc("GET "+BasePath+"/items/{id}/data", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if id == "missing" || strings.HasPrefix(id, "nonexistent") {
			http.NotFound(w, r)
			return
		}
		writeBytes(w, "text/plain; charset=utf-8", []byte("Data of item "+id+"."))
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

// noteText is the fixture's note.
const noteText = "This is the fixture's note, served as text/plain."

// pngPixel is a valid 1x1 PNG.
var pngPixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// silentWAV is a valid WAV file of 100 ms of silence (8 kHz, 8 bit, mono).
func silentWAV() []byte {
	const samples = 800
	b := make([]byte, 44+samples)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+samples))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], 8000)
	binary.LittleEndian.PutUint32(b[28:], 8000)
	binary.LittleEndian.PutUint16(b[32:], 1)
	binary.LittleEndian.PutUint16(b[34:], 8)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], samples)
	for i := 44; i < len(b); i++ {
		b[i] = 0x80 // silence in unsigned 8-bit PCM
	}
	return b
}

func writeBytes(w http.ResponseWriter, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(b)
}

func decode(r *http.Request, v any) error {
	return json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
