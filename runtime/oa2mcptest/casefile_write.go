package oa2mcptest

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// caseWriter writes a caseFile in the very bytes encoding/json writes it
// with EncodeCases's settings (two-space indent, no HTML escaping, keys
// in field order, map keys sorted, omitempty honoured, a newline at the
// end); TestWriteCasesIsEncodingJSON holds the two to each other on
// seeded suites. It exists for speed: a generated server's case file is
// the largest file of a run, and encoding/json checks every JSON text
// three times over (MarshalJSON, the compaction of its result, the
// indentation of the whole) where the writer scans it once.
type caseWriter struct {
	b []byte
	// pad is a newline and the current indentation, which every member
	// of an object or element of an array starts with.
	pad []byte
}

// writeCaseFile returns f as EncodeCases writes it.
func writeCaseFile(f *caseFile) []byte {
	w := &caseWriter{b: make([]byte, 0, 64<<10), pad: []byte("\n")}
	o := w.object()
	o.key("x-oa2mcp-generated").str(f.Marker)
	o.key("credentials").strings(f.Credentials)
	o.key("responses").responses(f.Responses)
	o.key("cases")
	w.open('[')
	for i := range f.Cases {
		w.elem(i)
		w.fileCase(&f.Cases[i])
	}
	w.close(']', len(f.Cases))
	o.end()
	return append(w.b, '\n')
}

func (w *caseWriter) fileCase(c *fileCase) {
	o := w.object()
	o.key("tool").str(c.Tool)
	o.key("name").str(c.Name)
	o.key("args").text(c.Args)
	o.optStr("caller", c.Caller)
	o.optStr("handleOwner", c.HandleOwner)
	o.optStr("fault", c.Fault)
	if len(c.Responses) > 0 {
		o.key("responses").responses(c.Responses)
	}
	if c.Answers != "" {
		o.key("answers").text(c.Answers)
	}
	o.optTrue("wantError", c.WantError)
	o.optStr("wantKind", c.WantKind)
	o.optTrue("wantUpstream", c.WantUpstream)
	if len(c.WantText) > 0 {
		o.key("wantText")
		w.open('[')
		for i, s := range c.WantText {
			w.elem(i)
			w.str(s)
		}
		w.close(']', len(c.WantText))
	}
	if p := c.WantPage; p != nil {
		po := o.key("wantPage").object()
		po.key("items").int(p.Items)
		po.key("total").int(p.Total)
		po.key("hasMore").bool(p.HasMore)
		po.key("next").int(p.Next)
		po.key("pageInput").str(p.PageInput)
		po.end()
	}
	o.end()
}

func (w *caseWriter) responses(m map[string]fileResponse) {
	o := w.object()
	for _, k := range textkit.SortedKeys(m) {
		r := m[k]
		ro := o.key(k).object()
		if r.Status != 0 {
			ro.key("status").int(r.Status)
		}
		ro.optStr("contentType", r.ContentType)
		if r.Body != "" {
			ro.key("body").text(r.Body)
		}
		if r.Repeat != nil {
			rep := ro.key("repeat").object()
			rep.key("count").int(r.Repeat.Count)
			rep.key("item").text(r.Repeat.Item)
			rep.end()
		}
		ro.optStr("bodyBase64", r.BodyBase64)
		ro.end()
	}
	o.end()
}

func (w *caseWriter) strings(m map[string]string) {
	o := w.object()
	for _, k := range textkit.SortedKeys(m) {
		o.key(k).str(m[k])
	}
	o.end()
}

// open starts an object or an array one level deeper.
func (w *caseWriter) open(c byte) {
	w.b = append(w.b, c)
	w.pad = append(w.pad, ' ', ' ')
}

// elem starts the i-th member or element on a line of its own.
func (w *caseWriter) elem(i int) {
	if i > 0 {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, w.pad...)
}

// close ends an object or an array of n members: an empty one stays
// on its line, as encoding/json writes {} and [].
func (w *caseWriter) close(c byte, n int) {
	w.pad = w.pad[:len(w.pad)-2]
	if n > 0 {
		w.b = append(w.b, w.pad...)
	}
	w.b = append(w.b, c)
}

// objectWriter writes the members of one object.
type objectWriter struct {
	w *caseWriter
	n int
}

func (w *caseWriter) object() *objectWriter {
	w.open('{')
	return &objectWriter{w: w}
}

// key starts a member and returns the writer of its value.
func (o *objectWriter) key(k string) *caseWriter {
	o.w.elem(o.n)
	o.n++
	o.w.str(k)
	o.w.b = append(o.w.b, ':', ' ')
	return o.w
}

func (o *objectWriter) optStr(k, v string) {
	if v != "" {
		o.key(k).str(v)
	}
}

func (o *objectWriter) optTrue(k string, v bool) {
	if v {
		o.key(k).bool(true)
	}
}

func (o *objectWriter) end() { o.w.close('}', o.n) }

func (w *caseWriter) int(n int) { w.b = strconv.AppendInt(w.b, int64(n), 10) }

func (w *caseWriter) bool(v bool) { w.b = strconv.AppendBool(w.b, v) }

// str writes s as a JSON string without HTML escaping.
func (w *caseWriter) str(s string) { w.b = plainjson.AppendString(w.b, s, false) }

// text writes a jsonText as its MarshalJSON says: a compact JSON object
// or array as JSON, indented where it stands; any other text as a JSON
// string, HTML-escaped as json.Marshal escapes it.
func (w *caseWriter) text(t jsonText) {
	if compactJSONShape(string(t)) {
		// Indent checks the JSON and leaves the buffer as it was when
		// the text is not JSON after all.
		buf := bytes.NewBuffer(w.b)
		if json.Indent(buf, []byte(t), string(w.pad[1:]), "  ") == nil {
			w.b = buf.Bytes()
			return
		}
		w.b = buf.Bytes()
	}
	w.b = plainjson.AppendString(w.b, string(t), true)
}

// compactJSONShape reports whether s starts as a JSON object or array and
// has no white space outside its strings: valid such text is what
// isCompactJSON accepts.
func compactJSONShape(s string) bool {
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return false
	}
	inString := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}
