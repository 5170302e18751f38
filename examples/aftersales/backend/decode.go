package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// maxBodyBytes bounds request bodies.
const maxBodyBytes = 64 << 10

// Patterns and enums of the document's schemas.
var (
	ticketIDRE     = regexp.MustCompile(`^T-[0-9]{4}-[0-9]{4}$`)
	orderIDRE      = regexp.MustCompile(`^O-[0-9]{6}$`)
	customerIDRE   = regexp.MustCompile(`^C-[0-9]{1,9}$`)
	skuRE          = regexp.MustCompile(`^[A-Z0-9-]{3,32}$`)
	idemKeyRE      = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	assessmentIDRE = regexp.MustCompile(`^RA-[0-9]{6}$`)
	ticketStatus   = []string{"review", "repair", "refund", "closed", "cancelled"}
	returnReasons  = []string{"defect", "wrong_item", "not_as_described", "changed_mind"}
	refundMethods  = []string{"original_payment", "store_credit", "bank_transfer"}
)

// decodeJSON decodes the JSON request body into dst. Missing or
// undecodable bodies answer 400, a wrong Content-Type 415, an oversized
// body 413, and a value of the wrong JSON type 422 naming the field.
// Unknown fields are ignored.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return &Problem{Type: problemType("unsupported-media-type"), Title: "Unsupported Media Type",
				Status: http.StatusUnsupportedMediaType, Detail: "Send the body as application/json, not " + ct + "."}
		}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &Problem{Type: problemType("payload-too-large"), Title: "Content Too Large",
			Status: http.StatusRequestEntityTooLarge, Detail: fmt.Sprintf("The body exceeds %d bytes.", maxBodyBytes)}
	}
	if err != nil {
		return badRequest("The request body could not be read: " + err.Error())
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return badRequest("A JSON request body is required.")
	}
	err = json.Unmarshal(data, dst)
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return unprocessable("validation", FieldError{Field: typeErr.Field, Message: "must be " + jsonKind(typeErr.Type.Kind().String()) + ", not a JSON " + typeErr.Value})
	case err != nil:
		return badRequest("The request body is not valid JSON: " + err.Error())
	}
	return nil
}

// jsonKind names a Go kind in JSON terms.
func jsonKind(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "an integer"
	case strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "string":
		return "a string"
	case kind == "bool":
		return "a boolean"
	case kind == "slice":
		return "an array"
	default:
		return "an object"
	}
}

// checker collects field errors for a 422 problem.
type checker struct {
	errs []FieldError
}

func (c *checker) add(field, format string, args ...any) {
	c.errs = append(c.errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// match checks a string against a pattern; empty means missing.
func (c *checker) match(field, v string, re *regexp.Regexp, example string, required bool) {
	switch {
	case v == "" && required:
		c.add(field, "is required, e.g. %s", example)
	case v != "" && !re.MatchString(v):
		c.add(field, "%q does not match %s, e.g. %s", v, re, example)
	}
}

// oneOf checks a string against an enum; empty means missing.
func (c *checker) oneOf(field, v string, allowed []string, required bool) {
	switch {
	case v == "" && required:
		c.add(field, "is required, one of %s", strings.Join(allowed, ", "))
	case v != "" && !slices.Contains(allowed, v):
		c.add(field, "%q is not one of %s", v, strings.Join(allowed, ", "))
	}
}

// maxLen checks a string's length in characters.
func (c *checker) maxLen(field, v string, n int) {
	if l := len([]rune(v)); l > n {
		c.add(field, "is %d characters long; at most %d are allowed", l, n)
	}
}

// err returns the collected errors as a 422 problem, or nil.
func (c *checker) err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return unprocessable("validation", c.errs...)
}

// pathTicketID reads and checks the ticketId path parameter (400 if malformed).
func pathTicketID(r *http.Request) (string, error) {
	id := r.PathValue("ticketId")
	if !ticketIDRE.MatchString(id) {
		return "", badRequest(fmt.Sprintf("Ticket number %q does not match T-YYYY-NNNN, e.g. T-2026-1031.", id))
	}
	return id, nil
}

// queryInt reads an optional integer query parameter within [lo, hi].
func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, badRequest(fmt.Sprintf("Query parameter %s=%q must be an integer from %d to %d.", name, s, lo, hi))
	}
	return n, nil
}
