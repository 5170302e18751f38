package load

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Raw-text fix-ups applied to each file before kin-openapi parses it. Every
// edit keeps line numbers unchanged (replacements stay on their line, or
// replace newlines with newlines), so positions kin records still point at
// the user's text.

// edit replaces data[off:off+n] with text.
type edit struct {
	off, n int
	text   string
}

// applyEdits applies non-overlapping edits (any order) back to front.
func applyEdits(data []byte, edits []edit) []byte {
	if len(edits) == 0 {
		return data
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].off > edits[j].off })
	out := bytes.Clone(data)
	for _, e := range edits {
		if e.off < 0 || e.off+e.n > len(out) {
			continue
		}
		out = append(out[:e.off], append([]byte(e.text), out[e.off+e.n:]...)...)
	}
	return out
}

// fixTupleItems rewrites Swagger 2.0 JSON tuple-style "items": [a, b] into
// "items": {"x-oa2mcp-tuple": true, "allOf": [a, b]}, which openapi2 can
// decode (it rejects an array there, and Swagger 2.0 has no anyOf). The
// schema converter turns the marked allOf into anyOf (tupleToAnyOf).
func (l *loader) fixTupleItems(key string, data []byte) []byte {
	if !bytes.Contains(data, []byte(`"items": [`)) && !bytes.Contains(data, []byte(`"items":[`)) {
		return data
	}
	hits := scanKeys(data, true, func(p []string) bool { return p[len(p)-1] == "items" })
	var edits []edit
	var li *lineIndex
	for _, h := range hits {
		if h.voff < len(data) && data[h.voff] == '[' && h.vend > h.voff && data[h.vend-1] == ']' && inSchemaContext(h.path) {
			edits = append(edits, edit{off: h.voff, n: 1, text: `{"` + tupleMarker + `":true,"allOf":[`}, edit{off: h.vend - 1, n: 1, text: `]}`})
			if li == nil {
				li = newLineIndex(data)
			}
			line, col := li.pos(h.off)
			l.probs.Warnf(Position{File: l.files.displayFile(key), Line: line, Column: col},
				"read as items that match any of them (anyOf); give items a single schema",
				`"items" is a list of schemas (the tuple form of later JSON Schema drafts), which Swagger 2.0 does not have`)
		}
	}
	return applyEdits(data, edits)
}

// tupleMarker flags a rewritten tuple "items"; see fixTupleItems.
const tupleMarker = "x-oa2mcp-tuple"

// inSchemaContext excludes "items" keys inside examples, where an array is
// ordinary data.
func inSchemaContext(p []string) bool {
	for _, k := range p {
		if k == "example" || k == "examples" || k == "x-example" || k == "default" || k == "enum" {
			return false
		}
	}
	return true
}

// fixDescriptionRefs replaces `description: {$ref: file#/ptr}` (a
// non-standard DigitalOcean idiom kin cannot decode into a string) by the
// referenced text, or by an empty string when it cannot be read. Only the
// keyword counts: a property named "description", or a "description" key
// in an example's data, is left alone.
func (l *loader) fixDescriptionRefs(key string, data []byte, isJSON bool) []byte {
	pat := []byte("description:")
	if isJSON || !bytes.Contains(data, pat) {
		return data
	}
	var edits []edit
	var li *lineIndex
	var keyword map[int]bool
	for i := 0; ; {
		j := bytes.Index(data[i:], pat)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(pat)
		e, ref, ok := descriptionRefEdit(key, data, at)
		if !ok {
			continue
		}
		if keyword == nil {
			keyword = descriptionKeywords(data)
		}
		if !keyword[at] {
			continue
		}
		edits = append(edits, e...)
		if li == nil {
			li = newLineIndex(data)
		}
		line, col := li.pos(at)
		l.probs.Warnf(Position{File: l.files.displayFile(key), Line: line, Column: col},
			"replaced by the text found there; write the text inline",
			`"description" is a $ref to %s; OpenAPI wants text here`, ref)
	}
	return applyEdits(data, edits)
}

// descriptionKeywords are the offsets of the "description" keys of a YAML
// file that are the keyword: not a name in a map of names (a property
// called so), not inside instance data. One scan, done only for a file
// that has a candidate at all.
func descriptionKeywords(data []byte) map[int]bool {
	out := map[int]bool{}
	for _, h := range scanKeys(data, false, func(p []string) bool { return p[len(p)-1] == "description" }) {
		names := keyRoles(h.path)
		if !names[len(h.path)-1] && !inData(h.path, names) {
			out[h.off] = true
		}
	}
	return out
}

// descriptionRefEdit checks one "description:" occurrence at offset at,
// whose value may be a lone $ref on the next line; it becomes the
// referenced text, and the $ref line a comment.
func descriptionRefEdit(key string, data []byte, at int) ([]edit, string, bool) {
	// These first checks reject almost every occurrence (Stripe has
	// thousands of descriptions), so they work on bytes, allocating nothing.
	lineStart := bytes.LastIndexByte(data[:at], '\n') + 1
	if len(bytes.TrimLeft(data[lineStart:at], " -")) != 0 {
		return nil, "", false
	}
	eol := bytes.IndexByte(data[at:], '\n')
	klen := len("description:")
	if eol < 0 || len(bytes.TrimSpace(data[at+klen:at+eol])) != 0 {
		return nil, "", false
	}
	next := at + eol + 1
	nextEnd := bytes.IndexByte(data[next:], '\n')
	if nextEnd < 0 {
		nextEnd = len(data) - next
	}
	line := string(data[next : next+nextEnd])
	body := strings.TrimLeft(line, " ")
	indent := at - lineStart
	if len(line)-len(body) <= indent || !strings.HasPrefix(body, "$ref:") {
		return nil, "", false
	}
	if !loneRefLine(data, next+nextEnd+1, indent) {
		return nil, "", false // the $ref has siblings: not a description $ref
	}
	ref := yamlScalar(body[len("$ref:"):])
	quoted, _ := json.Marshal(readRefText(key, ref))
	eolOff := at + eol
	if eolOff > 0 && data[eolOff-1] == '\r' {
		eolOff--
	}
	return []edit{
		{off: at + klen, n: eolOff - at - klen, text: " " + string(quoted)},
		{off: next, n: len(strings.TrimRight(line, "\r")), text: strings.Repeat(" ", len(line)-len(body)) + "# " + strings.TrimRight(body, "\r")},
	}, ref, true
}

// loneRefLine reports whether the first line from offset from that is
// not blank or a comment is indented at most indent: the mapping that
// held the $ref has nothing else.
func loneRefLine(data []byte, from, indent int) bool {
	for from < len(data) {
		end := bytes.IndexByte(data[from:], '\n')
		if end < 0 {
			end = len(data) - from
		}
		line := strings.TrimRight(string(data[from:from+end]), "\r")
		body := strings.TrimLeft(line, " ")
		if body != "" && body[0] != '#' {
			return len(line)-len(body) <= indent
		}
		from += end + 1
	}
	return true
}

// readRefValue reads the value a $ref points at, relative to the file
// with URL key; nil when it cannot.
func readRefValue(key, ref string) any {
	file, frag, _ := strings.Cut(ref, "#")
	base, err := url.Parse(key)
	if err != nil || file == "" || strings.Contains(file, "://") {
		return nil
	}
	p := path.Join(path.Dir(base.Path), file)
	b, err := readRegular(filepath.FromSlash(p))
	if err != nil {
		return nil
	}
	var v any
	if yaml.Unmarshal(b, &v) != nil {
		return nil
	}
	for _, tok := range strings.Split(strings.Trim(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[oa2mcpimpl.UnescapePointerToken(tok)]
	}
	return v
}

// readRefText is the string a description $ref points at, or "".
func readRefText(key, ref string) string {
	s, _ := readRefValue(key, ref).(string)
	return s
}

// fixIDRefs rewrites JSON Schema $id- and $anchor-based $refs (e.g.
// "/components/schemas/petdetails#pet_details_id") into JSON pointers to the
// schema they name, which kin-openapi can resolve; it would otherwise treat
// the $id as a file path.
func fixIDRefs(data []byte, isJSON bool) []byte {
	if !bytes.Contains(data, []byte("$id")) && !bytes.Contains(data, []byte("$anchor")) {
		return data
	}
	hits := scanKeys(data, isJSON, func(p []string) bool {
		k := p[len(p)-1]
		return k == "$id" || k == "$anchor" || k == "$ref"
	})
	ids, anchors := map[string][]string{}, map[string][]string{}
	for _, h := range hits {
		switch h.path[len(h.path)-1] {
		case "$id":
			ids[strings.TrimSuffix(h.value, "#")] = h.path[:len(h.path)-1]
		case "$anchor":
			anchors[h.value] = h.path[:len(h.path)-1]
		}
	}
	var edits []edit
	for _, h := range hits {
		if h.path[len(h.path)-1] != "$ref" {
			continue
		}
		target, ok := idTarget(h.value, ids, anchors)
		if !ok {
			continue
		}
		edits = append(edits, refValueEdit(data, h, target, isJSON))
	}
	return applyEdits(data, edits)
}

// idTarget maps a $ref naming an $id or anchor to the key path it denotes.
func idTarget(ref string, ids, anchors map[string][]string) ([]string, bool) {
	if ref == "" || strings.HasPrefix(ref, "#/") || ref == "#" {
		return nil, false
	}
	base, frag, _ := strings.Cut(ref, "#")
	var p []string
	if base != "" {
		var ok bool
		if p, ok = ids[base]; !ok {
			return nil, false
		}
	}
	switch {
	case frag == "":
	case strings.HasPrefix(frag, "/"):
		for _, tok := range strings.Split(frag[1:], "/") {
			p = append(p[:len(p):len(p)], oa2mcpimpl.UnescapePointerToken(tok))
		}
	default:
		a, ok := anchors[frag]
		if !ok {
			return nil, false
		}
		p = a
	}
	if p == nil {
		return nil, false
	}
	return p, true
}

// refValueEdit replaces the $ref value of hit h with a pointer to target.
func refValueEdit(data []byte, h keyHit, target []string, isJSON bool) edit {
	toks := make([]string, len(target))
	for i, t := range target {
		toks[i] = oa2mcpimpl.EscapePointerToken(t)
	}
	return refStringEdit(data, h, "#/"+strings.Join(toks, "/"), isJSON)
}

// refStringEdit replaces the $ref value of hit h with ref.
func refStringEdit(data []byte, h keyHit, ref string, isJSON bool) edit {
	if isJSON || h.vend > h.voff {
		// The scanner read the whole value (JSON, or a YAML flow mapping,
		// where the line goes on past it); a JSON string is valid YAML.
		q, _ := json.Marshal(ref)
		return edit{off: h.voff, n: h.vend - h.voff, text: string(q)}
	}
	val := valueOnLine(data, h.voff)
	return edit{off: h.voff, n: len(val), text: "'" + strings.ReplaceAll(ref, "'", "''") + "'"}
}
