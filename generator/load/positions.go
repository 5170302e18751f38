package load

import "strings"

// installFixups applies the raw-text fix-ups to the entry and arranges for
// every further file to get the same when kin first reads it. Each file is
// fixed once: the file set keeps the result, so warnings are not repeated
// when a load is retried.
func (l *loader) installFixups(entry []byte) {
	entryKey := l.files.entryURL().String()
	fix := func(key string, b []byte) []byte {
		isJSON := looksJSON(b)
		if l.swagger {
			if isJSON && key == entryKey {
				b = l.fixTupleItems(key, b)
			}
			return l.repairSchemaDefects(key, b, isJSON)
		}
		b = l.fixDescriptionRefs(key, b, isJSON)
		b = l.repairSchemaDefects(key, b, isJSON)
		if atLeast31(l.version) {
			b = fixIDRefs(b, isJSON)
		}
		if key == entryKey {
			b = fixSelfRefs(b, isJSON)
		}
		return fixMediaTypeRefs(key, b, isJSON)
	}
	l.files.setEntry(fix(entryKey, entry))
	l.files.fixups = fix
}

// v2Key names a Swagger 2.0 position: a path, method and optionally a
// parameter name (or "$ref:" and its $ref). A struct rather than a joined
// string, so that the thousands of look-ups on Kubernetes allocate nothing.
type v2Key struct{ path, method, param string }

// indexV2Positions records where each operation and named parameter of a
// Swagger 2.0 entry file is, since openapi2 keeps no origins.
func (l *loader) indexV2Positions() {
	data := l.files.entryData()
	isJSON := looksJSON(data)
	hits := scanKeys(data, isJSON, func(p []string) bool {
		if p[0] != "paths" {
			return false
		}
		switch len(p) {
		case 3:
			return true
		case 6:
			return p[3] == "parameters" && (p[5] == "name" || p[5] == "$ref")
		}
		return false
	})
	li := newLineIndex(data)
	l.v2pos = make(map[v2Key]Position, len(hits))
	for _, h := range hits {
		line, col := li.pos(h.off)
		pos := Position{File: l.path, Line: line, Column: col}
		if len(h.path) == 3 {
			l.v2pos[v2Key{h.path[1], strings.ToUpper(h.path[2]), ""}] = pos
			continue
		}
		name := h.value
		if h.path[5] == "$ref" {
			name = "$ref:" + h.value
		}
		l.v2pos[v2Key{h.path[1], strings.ToUpper(h.path[2]), name}] = pos
	}
}
