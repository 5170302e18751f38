package runtime

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/media"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// pathPart is one piece of a compiled path template: a literal, or the
// parameter at index param of compiledOp.pathParams.
type pathPart struct {
	literal string
	param   int // -1 for literals
}

// compiledOp is an operation prepared once at newServer so a call only
// fills in values.
type compiledOp struct {
	method    string
	pathLabel string // "GET /pet/{petId}", for logs only: messages use the tool's terms
	// inputOf maps a step's argument names to the tool inputs they come
	// from; nil for one-operation tools, whose arguments are the inputs.
	inputOf    map[string]string
	parts      []pathPart
	pathParams []Param
	query      []Param
	headers    []Param
	cookies    []Param
	body       *Body
	auth       *authPlan
	retry      retryPolicy // set by bindTool
	// fixedQuery is the query string written into the path key itself
	// ("/responses?beta=true"), sent before any parameter.
	fixedQuery string
}

// inputError is a problem with the caller's arguments found while building
// the request; it becomes an isError result, never a protocol error.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// inputName is the tool input an argument of the operation comes from,
// or "" when it comes from elsewhere (a constant, an earlier step).
func (c *compiledOp) inputName(arg string) string {
	if c.inputOf == nil {
		return arg
	}
	return c.inputOf[arg]
}

func compileOp(op *Operation, creds *credentialSet) (*compiledOp, error) {
	if op == nil {
		return nil, fmt.Errorf("tool has no operation")
	}
	c := &compiledOp{method: strings.ToUpper(op.Method), body: op.Body}
	if c.method == "" {
		c.method = "GET"
	}
	c.pathLabel = c.method + " " + op.Path
	for _, p := range op.Params {
		switch p.In {
		case InPath:
			c.pathParams = append(c.pathParams, p)
		case InQuery:
			c.query = append(c.query, p)
		case InHeader:
			c.headers = append(c.headers, p)
		case InCookie:
			c.cookies = append(c.cookies, p)
		default:
			return nil, fmt.Errorf("parameter %q: unknown location %q", p.Name, p.In)
		}
	}
	tmpl, fixed, _ := strings.Cut(op.Path, "?")
	c.fixedQuery = fixed
	parts, err := compilePath(tmpl, c.pathParams)
	if err != nil {
		return nil, err
	}
	c.parts = parts
	if c.auth, err = creds.plan(op.Security); err != nil {
		return nil, err
	}
	return c, nil
}

func compilePath(tmpl string, params []Param) ([]pathPart, error) {
	var parts []pathPart
	for tmpl != "" {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			parts = append(parts, pathPart{literal: tmpl, param: -1})
			break
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("path %q: unclosed '{'", tmpl)
		}
		if open > 0 {
			parts = append(parts, pathPart{literal: tmpl[:open], param: -1})
		}
		name := tmpl[open+1 : open+end]
		idx := -1
		for i, p := range params {
			if p.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("path %q: no path parameter for {%s}", tmpl, name)
		}
		parts = append(parts, pathPart{param: idx})
		tmpl = tmpl[open+end+1:]
	}
	return parts, nil
}

// buildPath expands the template; every value is percent-encoded so that no
// argument can add a segment, a query, a fragment or change the host.
func (c *compiledOp) buildPath(args map[string]any) (string, error) {
	var sb strings.Builder
	for _, part := range c.parts {
		if part.param < 0 {
			sb.WriteString(part.literal)
			continue
		}
		p := c.pathParams[part.param]
		v, ok := args[p.Arg]
		if !ok || v == nil {
			return "", inputErrorf("%q is required: it is part of the URL path", p.Arg)
		}
		if s, isStr := v.(string); isStr && (s == "." || s == ".." || s == "") {
			return "", inputErrorf("%q must not be %q: give the actual identifier", p.Arg, s)
		}
		sb.WriteString(expandPathParam(p, v))
	}
	path := sb.String()
	if hasDotSegment(path) {
		// An empty array in label or matrix style expands to "." alone,
		// which clients and proxies normalise into another route.
		return "", inputErrorf("the path parameters expand to an empty or dot path segment; give non-empty values")
	}
	return path, nil
}

// hasDotSegment reports whether a built path has a "." or ".." segment.
func hasDotSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

func expandPathParam(p Param, v any) string {
	prefix, sep := "", ","
	switch p.Style {
	case "label":
		prefix = "."
		if p.Explode {
			sep = "."
		}
	case "matrix":
		return expandMatrix(p, v)
	}
	switch x := v.(type) {
	case []any:
		items := make([]string, len(x))
		for i, e := range x {
			items[i] = escapeStrict(scalarString(e))
		}
		return prefix + strings.Join(items, sep)
	case map[string]any:
		return prefix + joinObject(x, p.Explode, sep, escapeStrict)
	}
	return prefix + escapeStrict(scalarString(v))
}

func expandMatrix(p Param, v any) string {
	name := ";" + escapeStrict(p.Name)
	switch x := v.(type) {
	case []any:
		var sb strings.Builder
		for i, e := range x {
			switch {
			case p.Explode:
				sb.WriteString(name + "=" + escapeStrict(scalarString(e)))
			case i == 0:
				sb.WriteString(name + "=" + escapeStrict(scalarString(e)))
			default:
				sb.WriteString("," + escapeStrict(scalarString(e)))
			}
		}
		return sb.String()
	case map[string]any:
		if p.Explode {
			return ";" + joinObject(x, true, ";", escapeStrict)
		}
		return name + "=" + joinObject(x, false, ",", escapeStrict)
	}
	s := scalarString(v)
	if s == "" {
		return name
	}
	return name + "=" + escapeStrict(s)
}

// joinObject renders an object's properties in key order as k=v pairs
// (explode) or as k,v,k,v (not exploded).
func joinObject(m map[string]any, explode bool, sep string, esc func(string) string) string {
	var sb strings.Builder
	for i, k := range textkit.SortedKeys(m) {
		if i > 0 {
			sb.WriteString(sep)
		}
		sb.WriteString(esc(k))
		if explode {
			sb.WriteByte('=')
		} else {
			sb.WriteByte(',')
		}
		sb.WriteString(esc(scalarString(m[k])))
	}
	return sb.String()
}

// scalarString renders a JSON value as a parameter string; nested
// structures, which no style can express, are sent as compact JSON.
func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// escapeStrict percent-encodes every byte that is not RFC 3986 unreserved.
func escapeStrict(s string) string { return escapeExcept(s, "") }

// reservedKept are the reserved characters allowReserved leaves literal.
// "&", "=", "+" and "#" stay encoded anyway: they would split or end the
// query and let a value inject parameters.
const reservedKept = ":/?[]@!$'()*,;"

func escapeExcept(s, keep string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isUnreserved(s[i]) && strings.IndexByte(keep, s[i]) < 0 {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	buf := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) || strings.IndexByte(keep, c) >= 0 {
			buf = append(buf, c)
			continue
		}
		buf = append(buf, '%', hex[c>>4], hex[c&15])
	}
	return string(buf)
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// buildQuery serialises the query parameters per their style.
func (c *compiledOp) buildQuery(args map[string]any) string {
	var sb strings.Builder
	sb.WriteString(c.fixedQuery)
	for _, p := range c.query {
		v, ok := args[p.Arg]
		if !ok || v == nil {
			continue
		}
		esc := escapeStrict
		if p.AllowReserved {
			esc = func(s string) string { return escapeExcept(s, reservedKept) }
		}
		appendQueryParam(&sb, p, v, esc)
	}
	return sb.String()
}

func addPair(sb *strings.Builder, name, value string) {
	if sb.Len() > 0 {
		sb.WriteByte('&')
	}
	sb.WriteString(name)
	sb.WriteByte('=')
	sb.WriteString(value)
}

func appendQueryParam(sb *strings.Builder, p Param, v any, esc func(string) string) {
	name := escapeStrict(p.Name)
	if p.Style == "deepObject" {
		if m, ok := v.(map[string]any); ok {
			appendDeepObject(sb, name, m, esc)
			return
		}
	}
	switch x := v.(type) {
	case []any:
		if p.Explode {
			for _, e := range x {
				addPair(sb, name, esc(scalarString(e)))
			}
			return
		}
		items := make([]string, len(x))
		for i, e := range x {
			items[i] = esc(scalarString(e))
		}
		addPair(sb, name, strings.Join(items, delimiterFor(p.Style)))
	case map[string]any:
		if p.Explode {
			for _, k := range textkit.SortedKeys(x) {
				addPair(sb, escapeStrict(k), esc(scalarString(x[k])))
			}
			return
		}
		addPair(sb, name, joinObject(x, false, delimiterFor(p.Style), esc))
	default:
		addPair(sb, name, esc(scalarString(v)))
	}
}

// delimiterFor gives the encoded array delimiter of a query style.
func delimiterFor(style string) string {
	switch style {
	case "spaceDelimited":
		return "%20"
	case "pipeDelimited":
		return "%7C"
	}
	return ","
}

// appendDeepObject writes name[k]=v, recursing into nested objects as
// name[k][j]=v (the widespread extension) and repeating arrays.
func appendDeepObject(sb *strings.Builder, name string, m map[string]any, esc func(string) string) {
	for _, k := range textkit.SortedKeys(m) {
		key := name + "[" + escapeStrict(k) + "]"
		switch x := m[k].(type) {
		case map[string]any:
			appendDeepObject(sb, key, x, esc)
		case []any:
			for _, e := range x {
				addPair(sb, key, esc(scalarString(e)))
			}
		case nil:
		default:
			addPair(sb, key, esc(scalarString(x)))
		}
	}
}

// headerValue renders a simple-style header value, refusing characters
// that could split or smuggle headers.
func headerValue(p Param, v any) (string, error) {
	var s string
	switch x := v.(type) {
	case []any:
		items := make([]string, len(x))
		for i, e := range x {
			items[i] = scalarString(e)
		}
		s = strings.Join(items, ",")
	case map[string]any:
		s = joinObject(x, p.Explode, ",", func(s string) string { return s })
	default:
		s = scalarString(v)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return "", inputErrorf("%q must not contain line breaks or control characters (it is sent as the HTTP header %s); remove them and call again", p.Arg, p.Name)
		}
	}
	return s, nil
}

// cookieHeader renders all cookie parameters as one Cookie header value.
func (c *compiledOp) cookieHeader(args map[string]any) string {
	var parts []string
	for _, p := range c.cookies {
		v, ok := args[p.Arg]
		if !ok || v == nil {
			continue
		}
		var s string
		switch x := v.(type) {
		case []any:
			items := make([]string, len(x))
			for i, e := range x {
				items[i] = escapeStrict(scalarString(e))
			}
			s = strings.Join(items, ",")
		case map[string]any:
			s = joinObject(x, false, ",", escapeStrict)
		default:
			s = escapeStrict(scalarString(v))
		}
		parts = append(parts, escapeStrict(p.Name)+"="+s)
	}
	return strings.Join(parts, "; ")
}

// buildBody encodes the request body, returning the reader and content type
// (both empty when the call sends no body).
func (c *compiledOp) buildBody(args map[string]any) (io.Reader, string, error) {
	b := c.body
	if b == nil {
		return nil, "", nil
	}
	value, present := bodyValue(b, args)
	if !present {
		if b.Required {
			return nil, "", inputErrorf("the request body is required: provide %s", bodyArgNames(b))
		}
		return nil, "", nil
	}
	if missing := c.missingBodyFields(args); len(missing) > 0 {
		return nil, "", inputErrorf("the request body needs %s", textkit.QuoteAll(missing))
	}
	if inputs := c.emptyPatchInputs(value); len(inputs) > 0 {
		return nil, "", inputErrorf("nothing to change: give at least one of %s", textkit.QuoteAll(inputs))
	}
	mt := b.MediaType
	switch {
	case media.IsJSON(mt) || mt == "":
		if mt == "" {
			mt = "application/json"
		}
		data, err := json.Marshal(value)
		if err != nil {
			return nil, "", inputErrorf("the request body cannot be encoded as JSON: %v", err)
		}
		return bytes.NewReader(data), mt, nil
	case strings.HasPrefix(mt, "application/x-www-form-urlencoded"):
		return formBody(value, mt)
	case strings.HasPrefix(mt, "multipart/form-data"):
		return multipartBody(value)
	}
	if s, ok := value.(string); ok {
		return strings.NewReader(s), mt, nil
	}
	data, _ := json.Marshal(value)
	return bytes.NewReader(data), mt, nil
}

// bodyValue collects the body from the arguments: the whole value of
// body.Arg, or an object of the flattened fields that were given.
func bodyValue(b *Body, args map[string]any) (any, bool) {
	if b.Arg != "" {
		v, ok := args[b.Arg]
		return v, ok && v != nil
	}
	if len(b.Fields) == 0 {
		return nil, false
	}
	obj := make(map[string]any, len(b.Fields))
	for _, f := range b.Fields {
		if v, ok := args[f.Arg]; ok {
			obj[f.Name] = v
		}
	}
	// A required body whose fields are all optional is sent as an empty
	// object; missingBodyFields checks the fields it must carry.
	return obj, len(obj) > 0 || b.Required
}

// emptyPatchInputs lists the tool inputs that could fill a PATCH whose
// body, built from fields, came out empty: an empty merge patch changes
// nothing, so sending it would report a change that never happened. Nil
// for any other call, or when no field comes from an input.
func (c *compiledOp) emptyPatchInputs(value any) []string {
	if c.method != "PATCH" || c.body.Arg != "" {
		return nil
	}
	if obj, ok := value.(map[string]any); !ok || len(obj) > 0 {
		return nil
	}
	var inputs []string
	for _, f := range c.body.Fields {
		if in := c.inputName(f.Arg); in != "" {
			inputs = append(inputs, in)
		}
	}
	return inputs
}

// missingBodyFields lists the inputs of required body fields that args
// lack: the input schema enforces them for one-operation tools, and this
// catches a step that never binds one.
func (c *compiledOp) missingBodyFields(args map[string]any) []string {
	var missing []string
	for _, f := range c.body.Fields {
		if v, ok := args[f.Arg]; f.Required && (!ok || v == nil) {
			missing = append(missing, cmp.Or(c.inputName(f.Arg), f.Name))
		}
	}
	return missing
}

func bodyArgNames(b *Body) string {
	if b.Arg != "" {
		return strconv.Quote(b.Arg)
	}
	names := make([]string, len(b.Fields))
	for i, f := range b.Fields {
		names[i] = f.Arg
	}
	if len(names) == 0 {
		return "a body"
	}
	return "at least one of " + textkit.QuoteAll(names)
}

// formBody encodes an object as application/x-www-form-urlencoded: arrays
// repeat the key, nested objects use key[sub] and arrays of objects
// key[i][sub], the convention of Stripe and most form parsers.
func formBody(value any, mt string) (io.Reader, string, error) {
	obj, ok := value.(map[string]any)
	if !ok {
		return nil, "", inputErrorf("the form body must be an object of fields; got %s", jsonschema.DescribeValue(value))
	}
	vals := url.Values{}
	for k, v := range obj {
		addFormValue(vals, k, v)
	}
	return strings.NewReader(vals.Encode()), mt, nil
}

func addFormValue(vals url.Values, key string, v any) {
	switch x := v.(type) {
	case nil:
	case map[string]any:
		for k, e := range x {
			addFormValue(vals, key+"["+k+"]", e)
		}
	case []any:
		for i, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				addFormValue(vals, key+"["+strconv.Itoa(i)+"]", e)
			default:
				vals.Add(key, scalarString(e))
			}
		}
	default:
		vals.Add(key, scalarString(x))
	}
}

// multipartBody sends each field as a part: scalars as text parts, arrays
// as one part per item, objects as application/json parts.
func multipartBody(value any) (io.Reader, string, error) {
	obj, ok := value.(map[string]any)
	if !ok {
		return nil, "", inputErrorf("the multipart body must be an object of fields; got %s", jsonschema.DescribeValue(value))
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range textkit.SortedKeys(obj) {
		items, isArr := obj[k].([]any)
		if !isArr {
			items = []any{obj[k]}
		}
		for _, item := range items {
			if err := writePart(w, k, item); err != nil {
				return nil, "", err
			}
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return &buf, w.FormDataContentType(), nil
}

func writePart(w *multipart.Writer, name string, v any) error {
	switch v.(type) {
	case nil:
		return nil
	case map[string]any, []any:
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"`, quoteEscaper.Replace(name)))
		h.Set("Content-Type", "application/json")
		pw, err := w.CreatePart(h)
		if err != nil {
			return err
		}
		return json.NewEncoder(pw).Encode(v)
	}
	return w.WriteField(name, scalarString(v))
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")
