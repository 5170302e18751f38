package load

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// "properties: {$ref: X}" — a properties object that is itself a $ref
// instead of a map of properties. When X is a schema, the author meant
// "this object has X's properties": it is read as allOf: [{$ref: X}].
// When X is a map of properties (DigitalOcean keeps such maps in files of
// their own), it is read as one $ref per property, X/name. Both rewrites
// stay on the lines they started on.

// structuralKeys are schema keywords whose value is a mapping (or list of
// them); a map with one of them is a schema, not a map of properties.
var structuralKeys = setOf("properties", "patternProperties", "items", "prefixItems",
	"additionalProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$defs",
	"definitions", "contains", "dependentSchemas", "propertyNames", "$ref")

// propsRefSite is one "properties: {$ref: X}" with what the second scan
// learns about it.
type propsRefSite struct {
	ref      keyHit // the $ref key
	props    keyHit // the properties key
	siblings int    // other keys in the properties object
	allOf    bool   // the parent schema has an allOf already
}

// propertiesRefs repairs the properties objects whose $ref keys are hits.
func (r *defectScan) propertiesRefs(hits []keyHit) {
	if len(hits) == 0 {
		return
	}
	set := newPathSet()
	targets := map[string]map[string]byte{}
	for _, h := range hits {
		set.add(h.path[:len(h.path)-1])
		set.add(h.path[:len(h.path)-2])
		if file, frag, _ := strings.Cut(h.value, "#"); file == "" {
			set.add(pointerTokens(frag))
			targets[joinPath(pointerTokens(frag))] = map[string]byte{}
		}
	}
	sites := make([]*propsRefSite, len(hits))
	byProps := map[string]*propsRefSite{}
	byParent := map[string]*propsRefSite{}
	for i, h := range hits {
		sites[i] = &propsRefSite{ref: h}
		byProps[joinPath(h.path[:len(h.path)-1])] = sites[i]
		byParent[joinPath(h.path[:len(h.path)-2])] = sites[i]
	}
	for _, h := range scanKeys(r.data, r.isJSON, set.want) {
		k, parent := joinPath(h.path), joinPath(h.path[:len(h.path)-1])
		if s := byProps[k]; s != nil {
			s.props = r.withFlowEnd(h)
		}
		if s := byProps[parent]; s != nil && h.path[len(h.path)-1] != "$ref" {
			s.siblings++
		}
		if s := byParent[parent]; s != nil && h.path[len(h.path)-1] == "allOf" {
			s.allOf = true
		}
		if t := targets[parent]; t != nil {
			t[h.path[len(h.path)-1]] = r.kind(h)
		}
	}
	for _, s := range sites {
		switch {
		case s.props.path == nil:
		case s.siblings == 0:
			r.propertiesRef(s, targets)
		default:
			r.siblingRef(s)
		}
	}
}

// propertiesRef repairs one site, as allOf or as per-property $refs.
func (r *defectScan) propertiesRef(s *propsRefSite, targets map[string]map[string]byte) {
	ref := s.ref.value
	names, isMap := r.refTargetProperties(ref, targets)
	switch {
	case isMap && len(names) > 0:
		r.found = append(r.found, defect{at: s.props.off, edits: r.perPropertyEdits(s, ref, names),
			msg: `"properties" is a $ref to ` + ref + `, not a map of properties`,
			fix: "read as the properties found there, one $ref each; list them under properties instead"})
	case !isMap && !s.allOf:
		r.found = append(r.found, defect{at: s.props.off, edits: r.allOfEdits(s),
			msg: `"properties" is a $ref to ` + ref + `, not a map of properties`,
			fix: "read as the schema found there (allOf: [{$ref: " + ref + "}]); write that instead"})
	case !isMap:
		r.siblingRef(s)
	}
}

// siblingRef repairs a $ref written among the properties (or beside an
// allOf the schema has already): the $ref becomes a property named
// propsRefMarker holding it, on the same line, which the schema converter
// reads as one more allOf member.
func (r *defectScan) siblingRef(s *propsRefSite) {
	ref, h := s.ref.value, s.ref
	q, _ := json.Marshal(ref)
	text := `"` + propsRefMarker + `": {"$ref": ` + string(q) + "}"
	end := h.vend
	if !r.isJSON && h.vend <= h.voff {
		end = h.voff + len(valueOnLine(r.data, h.voff))
	}
	r.found = append(r.found, defect{at: h.off, edits: []edit{{off: h.off, n: end - h.off, text: text}},
		msg: `"$ref: ` + ref + `" is written among the properties, where every key is a property name`,
		fix: "read as the schema found there, combined with the properties (allOf: [{$ref: " + ref + "}]); move it to an allOf beside properties"})
}

// refTargetProperties reads what ref points at: the names under it and
// whether it is a map of properties rather than a schema. A target that
// cannot be read is taken for a schema; kin reports the $ref if broken.
func (r *defectScan) refTargetProperties(ref string, targets map[string]map[string]byte) ([]string, bool) {
	file, frag, _ := strings.Cut(ref, "#")
	kinds := map[string]byte{}
	if file == "" {
		kinds = targets[joinPath(pointerTokens(frag))]
	} else if m, ok := readRefValue(r.key, ref).(map[string]any); ok {
		for k, v := range m {
			if _, isMap := v.(map[string]any); isMap {
				kinds[k] = '{'
			} else {
				kinds[k] = 's'
			}
		}
	}
	names := make([]string, 0, len(kinds))
	isMap := len(kinds) > 0
	for k, kind := range kinds {
		names = append(names, k)
		if kind != '{' || structuralKeys[k] {
			isMap = false
		}
	}
	sort.Strings(names)
	return names, isMap
}

// allOfEdits renames properties to allOf and makes its value a list.
func (r *defectScan) allOfEdits(s *propsRefSite) []edit {
	edits := []edit{r.rename(s.props, "allOf")}
	if r.isJSON || s.props.vend > s.props.voff {
		return append(edits, edit{off: s.props.voff, text: "["}, edit{off: s.props.vend, text: "]"})
	}
	// A block mapping: the $ref line becomes a sequence item. The dash
	// takes two spaces of the indent where it can, so that columns stay.
	at := s.ref.off
	keyCol := s.props.off - (bytes.LastIndexByte(r.data[:s.props.off], '\n') + 1)
	indent := at - (bytes.LastIndexByte(r.data[:at], '\n') + 1)
	if indent-2 >= keyCol && string(r.data[at-2:at]) == "  " {
		return append(edits, edit{off: at - 2, n: 2, text: "- "})
	}
	return append(edits, edit{off: at, text: "- "})
}

// perPropertyEdits replaces the properties object by a flow mapping of
// one $ref per property: in place for JSON and flow mappings (newlines
// kept), else after the key, with the $ref line commented out.
func (r *defectScan) perPropertyEdits(s *propsRefSite, ref string, names []string) []edit {
	base := ref
	if !strings.Contains(base, "#") {
		base += "#"
	}
	base = strings.TrimSuffix(base, "/")
	parts := make([]string, len(names))
	for i, n := range names {
		kq, _ := json.Marshal(n)
		rq, _ := json.Marshal(base + "/" + oa2mcpimpl.EscapePointerToken(n))
		parts[i] = string(kq) + `: {"$ref": ` + string(rq) + "}"
	}
	text := "{" + strings.Join(parts, ", ") + "}"
	if r.isJSON || s.props.vend > s.props.voff {
		old := r.data[s.props.voff:s.props.vend]
		text += strings.Repeat("\n", bytes.Count(old, []byte("\n")))
		return []edit{{off: s.props.voff, n: len(old), text: text}}
	}
	return []edit{{off: s.props.voff, text: " " + text + " "}, {off: s.ref.off, text: "# "}}
}

// withFlowEnd completes a YAML block key whose value is a flow collection
// with the end of that collection, which the block scan does not record.
func (r *defectScan) withFlowEnd(h keyHit) keyHit {
	if r.isJSON || h.vend > h.voff || h.voff >= len(r.data) || (r.data[h.voff] != '{' && r.data[h.voff] != '[') {
		return h
	}
	fs := &jsonScanner{data: r.data, want: func([]string) bool { return false }, yaml: true}
	if end := fs.value(h.voff, 0); !fs.failed {
		h.vend = end
	}
	return h
}
