package backend

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Session properties reported by loginUser.
const (
	rateLimit  = "5000"
	sessionTTL = time.Hour
)

var errUserNotFound = errorf(http.StatusNotFound, "User not found")

// userFromForm decodes a form-encoded User.
func userFromForm(f *formValues) (User, error) {
	u := User{
		ID:         f.int("id", 64),
		Username:   f.str("username"),
		FirstName:  f.str("firstName"),
		LastName:   f.str("lastName"),
		Email:      f.str("email"),
		Password:   f.str("password"),
		Phone:      f.str("phone"),
		UserStatus: int32(f.int("userStatus", 32)),
	}
	return u, f.err
}

// validateUser requires a username usable as a path segment (422 otherwise).
func validateUser(u User) error {
	if strings.TrimSpace(u.Username) == "" {
		return errorf(http.StatusUnprocessableEntity, "Validation exception: username is required")
	}
	if strings.ContainsAny(u.Username, "/?#") {
		return errorf(http.StatusUnprocessableEntity, "Validation exception: username must not contain '/', '?' or '#'")
	}
	return nil
}

// createUser implements POST /user.
func (s *server) createUser(w http.ResponseWriter, r *http.Request) {
	u, err := decodeBody(w, r, userFromForm)
	if err == nil {
		err = validateUser(u)
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.db.addUsers(u)[0])
}

// createUsersWithListInput implements POST /user/createWithList (JSON array
// only). As the document declares a single User response, the first created
// user is returned.
func (s *server) createUsersWithListInput(w http.ResponseWriter, r *http.Request) {
	users, err := decodeBody[[]User](w, r, nil)
	if err == nil && len(users) == 0 {
		err = errInvalidInput("at least one user is required")
	}
	for i := 0; err == nil && i < len(users); i++ {
		err = validateUser(users[i])
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.db.addUsers(users...)[0])
}

// loginUser implements GET /user/login. It checks the credentials and
// answers a session string with X-Rate-Limit and X-Expires-After headers.
func (s *server) loginUser(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	u, ok := s.db.user(q.Get("username"))
	if !ok || u.Password != q.Get("password") {
		writeError(w, http.StatusBadRequest, "Invalid username/password supplied")
		return
	}
	token := make([]byte, 8)
	_, _ = rand.Read(token)
	w.Header().Set("X-Rate-Limit", rateLimit)
	w.Header().Set("X-Expires-After", time.Now().Add(sessionTTL).UTC().Format(time.RFC3339))
	writeJSON(w, http.StatusOK, "logged in user session:"+hex.EncodeToString(token))
}

// logoutUser implements GET /user/logout.
func (s *server) logoutUser(w http.ResponseWriter, _ *http.Request) {
	writeAck(w, "User logged out")
}

// getUserByName implements GET /user/{username}.
func (s *server) getUserByName(w http.ResponseWriter, r *http.Request) {
	u, ok := s.db.user(r.PathValue("username"))
	if !ok {
		writeErr(w, errUserNotFound)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

// updateUser implements PUT /user/{username}: a full replacement; an empty
// username in the body keeps the path's, a different one renames the user.
func (s *server) updateUser(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("username")
	u, err := decodeBody(w, r, userFromForm)
	if err == nil && u.Username == "" {
		u.Username = name
	}
	if err == nil {
		err = validateUser(u)
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	updated, ok, err := s.db.replaceUser(name, u)
	switch {
	case !ok:
		writeErr(w, errUserNotFound)
	case errors.Is(err, errUsernameTaken{}):
		writeError(w, http.StatusBadRequest, "Bad request: username "+u.Username+" already taken")
	default:
		writeJSON(w, http.StatusOK, updated)
	}
}

// deleteUser implements DELETE /user/{username}.
func (s *server) deleteUser(w http.ResponseWriter, r *http.Request) {
	if !s.db.deleteUser(r.PathValue("username")) {
		writeErr(w, errUserNotFound)
		return
	}
	writeAck(w, "User deleted")
}
