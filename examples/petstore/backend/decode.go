package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// maxBodyBytes bounds JSON and form request bodies.
const maxBodyBytes = 1 << 20

// errInvalidInput is the generic 400 for undecodable request bodies.
func errInvalidInput(detail string) error {
	return errorf(http.StatusBadRequest, "Invalid input: "+detail)
}

// readLimited reads at most limit bytes of the request body.
func readLimited(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, errorf(http.StatusRequestEntityTooLarge, "Request body too large")
	}
	if err != nil {
		return nil, errInvalidInput(err.Error())
	}
	return data, nil
}

// decodeBody decodes a JSON or (when fromForm is non-nil) a form-encoded
// request body into a T. A missing Content-Type is treated as JSON.
func decodeBody[T any](w http.ResponseWriter, r *http.Request, fromForm func(*formValues) (T, error)) (T, error) {
	var v T
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	isJSON := mediaType == "" || mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
	isForm := mediaType == "application/x-www-form-urlencoded" && fromForm != nil
	if !isJSON && !isForm {
		return v, errorf(http.StatusUnsupportedMediaType, "Unsupported content type "+mediaType)
	}
	data, err := readLimited(w, r, maxBodyBytes)
	if err != nil {
		return v, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return v, errInvalidInput("request body is required")
	}
	if isForm {
		vals, err := url.ParseQuery(string(data))
		if err != nil {
			return v, errInvalidInput(err.Error())
		}
		return fromForm(newFormValues(vals))
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, errInvalidInput(err.Error())
	}
	return v, nil
}

// formValues gives typed access to form fields. Keys are normalised so that
// "category[name]", "category.name", "photoUrls[]" and "tags[0][name]"
// become "category.name", "photoUrls" and "tags.0.name". The first
// conversion error is kept in err.
type formValues struct {
	vals url.Values
	err  error
}

// newFormValues normalises the keys of vals.
func newFormValues(vals url.Values) *formValues {
	norm := url.Values{}
	for k, vs := range vals {
		k = strings.ReplaceAll(strings.ReplaceAll(k, "]", ""), "[", ".")
		k = strings.TrimSuffix(k, ".")
		norm[k] = append(norm[k], vs...)
	}
	return &formValues{vals: norm}
}

func (f *formValues) has(key string) bool { return len(f.vals[key]) > 0 }

func (f *formValues) str(key string) string { return f.vals.Get(key) }

// fail records the first conversion error.
func (f *formValues) fail(key string, err error) {
	if f.err == nil {
		f.err = errInvalidInput("field " + key + ": " + err.Error())
	}
}

// int parses key as an integer of the given bit size; absent means 0.
func (f *formValues) int(key string, bits int) int64 {
	s := strings.TrimSpace(f.str(key))
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		f.fail(key, err)
	}
	return n
}

// bool parses key as a boolean ("on" counts as true); absent means false.
func (f *formValues) bool(key string) bool {
	s := strings.TrimSpace(f.str(key))
	if s == "" {
		return false
	}
	if strings.EqualFold(s, "on") {
		return true
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		f.fail(key, err)
	}
	return b
}

// list returns the repeated values of key, a JSON array given as the single
// value of key, and indexed "key.N" values in index order. It returns nil
// when none is present.
func (f *formValues) list(key string) []string {
	vs := f.vals[key]
	if len(vs) == 1 && strings.HasPrefix(strings.TrimSpace(vs[0]), "[") {
		var arr []string
		if err := json.Unmarshal([]byte(vs[0]), &arr); err == nil {
			vs = arr
		}
	}
	out := slices.Clone(vs)
	for _, i := range f.indexes(key) {
		out = append(out, f.vals[key+"."+strconv.Itoa(i)]...)
	}
	return out
}

// indexes returns, sorted, the N of every "key.N" or "key.N.field" key.
func (f *formValues) indexes(key string) []int {
	seen := map[int]bool{}
	for k := range f.vals {
		rest, ok := strings.CutPrefix(k, key+".")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, ".")
		if i, err := strconv.Atoi(num); err == nil {
			seen[i] = true
		}
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// jsonValue decodes s into dst when it looks like a JSON object or array.
func (f *formValues) jsonValue(key, s string, dst any) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") {
		return false
	}
	if err := json.Unmarshal([]byte(s), dst); err != nil {
		f.fail(key, err)
	}
	return true
}
