// Package backend is a small in-memory implementation of the Swagger
// Petstore OpenAPI 3.0 document (swagger-petstore-3.0.yaml), served under the
// document's base path /api/v3. It exists so that generated MCP servers can
// be exercised against a real HTTP API without network access.
//
// Every operation of the document is implemented with its declared paths,
// parameters and status codes. Request bodies may be JSON or
// application/x-www-form-urlencoded where the document declares the latter;
// responses are always JSON.
package backend

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// BasePath is the URL prefix under which every operation is mounted.
const BasePath = "/api/v3"

// server holds the per-handler state shared by the operation handlers.
type server struct {
	db *memDB
}

// NewHandler returns an http.Handler serving the Petstore API under BasePath,
// backed by a freshly seeded in-memory store (10 pets, 3 orders, 2 users).
// The handler is safe for concurrent use.
func NewHandler() http.Handler {
	s := &server{db: newMemDB()}
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		method, path, _ := strings.Cut(rt.pattern, " ")
		mux.HandleFunc(method+" "+BasePath+path, rt.handle)
	}
	return jsonFallback(mux)
}

// route binds a "METHOD /path" pattern (relative to BasePath) to a handler.
type route struct {
	pattern string
	handle  http.HandlerFunc
}

// routes lists the 19 operations of the document.
func (s *server) routes() []route {
	return []route{
		{"PUT /pet", s.updatePet},
		{"POST /pet", s.addPet},
		{"GET /pet/findByStatus", s.findPetsByStatus},
		{"GET /pet/findByTags", s.findPetsByTags},
		{"GET /pet/{petId}", s.getPetByID},
		{"POST /pet/{petId}", s.updatePetWithForm},
		{"DELETE /pet/{petId}", s.deletePet},
		{"POST /pet/{petId}/uploadImage", s.uploadFile},
		{"GET /store/inventory", s.getInventory},
		{"POST /store/order", s.placeOrder},
		{"GET /store/order/{orderId}", s.getOrderByID},
		{"DELETE /store/order/{orderId}", s.deleteOrder},
		{"POST /user", s.createUser},
		{"POST /user/createWithList", s.createUsersWithListInput},
		{"GET /user/login", s.loginUser},
		{"GET /user/logout", s.logoutUser},
		{"GET /user/{username}", s.getUserByName},
		{"PUT /user/{username}", s.updateUser},
		{"DELETE /user/{username}", s.deleteUser},
	}
}

// jsonFallback serves mux, but turns the mux's plain-text 404 and 405
// replies into JSON APIResponse bodies.
func jsonFallback(mux *http.ServeMux) http.Handler {
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
		writeError(w, rec.status, http.StatusText(rec.status))
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

// apiError is an error carrying the HTTP status it should be reported with.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// errorf builds an apiError.
func errorf(status int, msg string) error {
	return &apiError{status: status, msg: msg}
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	_ = enc.Encode(v)
}

// writeError writes an APIResponse error body such as
// {"code":404,"message":"Pet not found"}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, APIResponse{Code: status, Message: msg})
}

// writeErr reports err, using its status when it is an apiError.
func writeErr(w http.ResponseWriter, err error) {
	var ae *apiError
	if errors.As(err, &ae) {
		writeError(w, ae.status, ae.msg)
		return
	}
	writeError(w, http.StatusInternalServerError, err.Error())
}

// writeAck writes a 200 APIResponse acknowledgement.
func writeAck(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusOK, APIResponse{Code: http.StatusOK, Message: msg})
}

// pathID parses the positive int64 path parameter name.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id < 1 {
		return 0, errorf(http.StatusBadRequest, "Invalid ID supplied")
	}
	return id, nil
}
