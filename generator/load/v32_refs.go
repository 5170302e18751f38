package load

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// fixSelfRefs rewrites the $refs of the entry document that name it, or a
// document beside it, by the URI its OpenAPI 3.2 $self gives (say
// "https://example.com/api/openapi.yaml#/components/schemas/Pet" or
// ".../api/common.yaml#/Pet"), into references to the local files: the
// entry itself ("#/components/schemas/Pet"), or the file at the same
// place relative to it ("common.yaml#/Pet"). The files on disk are taken
// to be laid out as they are published.
func fixSelfRefs(data []byte, isJSON bool) []byte {
	if !bytes.Contains(data, []byte("$self")) {
		return data
	}
	hits := scanKeys(data, isJSON, func(p []string) bool {
		return len(p) == 1 && p[0] == "$self" || p[len(p)-1] == "$ref"
	})
	var self *url.URL
	for _, h := range hits {
		if len(h.path) == 1 && h.path[0] == "$self" {
			self, _ = url.Parse(h.value)
		}
	}
	if self == nil || !self.IsAbs() {
		return data // a relative $self resolves like the file's own location
	}
	var edits []edit
	for _, h := range hits {
		if h.path[len(h.path)-1] != "$ref" {
			continue
		}
		if local, ok := selfRelative(self, h.value); ok {
			edits = append(edits, refStringEdit(data, h, local, isJSON))
		}
	}
	return applyEdits(data, edits)
}

// selfRelative turns ref, when it is an absolute URI of the document
// self or of one in the same folder, into a local reference.
func selfRelative(self *url.URL, ref string) (string, bool) {
	u, err := url.Parse(ref)
	if err != nil || !u.IsAbs() || u.Scheme != self.Scheme || u.Host != self.Host {
		return "", false
	}
	frag := ""
	if u.Fragment != "" || strings.HasSuffix(ref, "#") {
		frag = "#" + u.EscapedFragment()
	}
	if u.Path == self.Path {
		return firstNonEmpty(frag, "#"), true
	}
	dir := path.Dir(self.Path) + "/"
	if rel, ok := strings.CutPrefix(u.Path, dir); ok && rel != "" {
		return rel + frag, true
	}
	return "", false
}

// fixMediaTypeRefs reads a content entry written as a $ref to a Media
// Type Object (OpenAPI 3.2 components.mediaTypes), which kin does not
// resolve, as the schema the referenced media type has: the $ref becomes
// "schema" (or "itemSchema") with a $ref to that member, on the same line.
func fixMediaTypeRefs(key string, data []byte, isJSON bool) []byte {
	if !bytes.Contains(data, []byte("mediaTypes")) {
		return data
	}
	hits := scanKeys(data, isJSON, func(p []string) bool {
		n := len(p)
		return n >= 3 && p[n-1] == "$ref" && p[n-3] == "content" || n >= 4 && p[0] == "components" && p[1] == "mediaTypes"
	})
	members := map[string][]string{} // media type pointer -> its keys
	for _, h := range hits {
		if len(h.path) == 4 && h.path[0] == "components" {
			ptr := "#/components/mediaTypes/" + oa2mcpimpl.EscapePointerToken(h.path[2])
			members[ptr] = append(members[ptr], h.path[3])
		}
	}
	var edits []edit
	for _, h := range hits {
		n := len(h.path)
		if h.path[n-1] != "$ref" || n < 3 || h.path[n-3] != "content" {
			continue
		}
		if member := mediaTypeMember(key, h.value, members); member != "" {
			edits = append(edits, mediaRefEdit(data, h, member, isJSON))
		}
	}
	return applyEdits(data, edits)
}

// mediaTypeMember is the schema member ("schema", else "itemSchema") of
// the Media Type Object ref points at, "" when it has none.
func mediaTypeMember(key, ref string, members map[string][]string) string {
	var keys []string
	if file, _, _ := strings.Cut(ref, "#"); file == "" {
		keys = members[strings.TrimSuffix(ref, "/")]
	} else if m, ok := readRefValue(key, ref).(map[string]any); ok {
		keys = slices.Sorted(maps.Keys(m))
	}
	for _, want := range []string{"schema", "itemSchema"} {
		for _, k := range keys {
			if k == want {
				return want
			}
		}
	}
	return ""
}

// mediaRefEdit replaces `$ref: X` by `member: {"$ref": "X/member"}`.
func mediaRefEdit(data []byte, h keyHit, member string, isJSON bool) edit {
	target, _ := json.Marshal(strings.TrimSuffix(h.value, "/") + "/" + member)
	text := `"` + member + `": {"$ref": ` + string(target) + "}"
	end := h.vend
	if !isJSON && end <= h.voff {
		end = h.voff + len(valueOnLine(data, h.voff))
	}
	return edit{off: h.off, n: end - h.off, text: text}
}

// valueOnLine is the rest of the line from off, without its line end.
func valueOnLine(data []byte, off int) string {
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data) - off
	}
	return strings.TrimRight(string(data[off:off+end]), "\r")
}
