package load

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Positions of OpenAPI 3 operations, parameters and request bodies, read
// from the raw text. kin-openapi's origin tracking would give them, but it
// almost doubles kin's load time. Instead the converter asks where each
// element it creates is written (askPos) and resolvePositions scans each
// file involved once, for just those key paths. The positions are the ones
// kin's origins give: a mapping key, or for a sequence item or a whole
// file the first key inside it.

// nodeRef names a node by its file (URL key in the file set) and the key
// path to it.
type nodeRef struct {
	file string
	path []string
}

// child is the node under key (or sequence index) k. The empty nodeRef
// (no position wanted, as for Swagger 2.0) has only empty children.
func (n nodeRef) child(k string) nodeRef {
	if n.file == "" {
		return n
	}
	return nodeRef{file: n.file, path: append(n.path[:len(n.path):len(n.path)], k)}
}

// posRequest asks for the position of the first of at that is found.
type posRequest struct {
	dst *Position
	at  []nodeRef
	// fallback is read when nothing is found, after earlier requests are
	// filled in: a parameter falls back to its operation's position.
	fallback *Position
}

// pendingWarning is a warning waiting for resolvePositions to place it.
type pendingWarning struct {
	pos      Position
	fix, msg string
}

// warnAt reports a warning at the node at once positions are resolved:
// the converter finds most problems before it knows where they are.
func (l *loader) warnAt(at nodeRef, fix, format string, args ...any) {
	w := &pendingWarning{fix: fix, msg: fmt.Sprintf(format, args...)}
	l.askPos(&w.pos, nil, at)
	l.pending = append(l.pending, w)
}

// askPos queues a request; nodes with an empty file are skipped.
func (l *loader) askPos(dst, fallback *Position, at ...nodeRef) {
	kept := at[:0]
	for _, n := range at {
		if n.file != "" {
			kept = append(kept, n)
		}
	}
	l.posReqs = append(l.posReqs, posRequest{dst: dst, at: kept, fallback: fallback})
}

// refNode is the node a resolved $ref points at, from kin's RefPath.
func refNode(u *url.URL) nodeRef {
	if u == nil {
		return nodeRef{}
	}
	file := *u
	file.Fragment, file.RawFragment = "", ""
	return nodeRef{file: file.String(), path: pointerTokens(u.Fragment)}
}

// pointerTokens splits a JSON pointer ("/a/b~1c") into its keys.
func pointerTokens(ptr string) []string {
	ptr = strings.Trim(ptr, "/")
	if ptr == "" {
		return nil
	}
	toks := strings.Split(ptr, "/")
	for i, t := range toks {
		toks[i] = oa2mcpimpl.UnescapePointerToken(t)
	}
	return toks
}

// resolvePositions answers every queued request, in order.
func (l *loader) resolvePositions() {
	sets := map[string]*pathSet{}
	for _, r := range l.posReqs {
		for _, n := range r.at {
			if sets[n.file] == nil {
				sets[n.file] = newPathSet()
			}
			sets[n.file].add(n.path)
		}
	}
	found := make(map[string]*filePositions, len(sets))
	for file, set := range sets {
		found[file] = l.scanPositions(file, set)
	}
	for _, r := range l.posReqs {
		*r.dst = l.answer(r, found)
	}
	l.posReqs = nil
	for _, w := range l.pending {
		l.probs.Warnf(w.pos, w.fix, "%s", w.msg)
	}
	l.pending = nil
}

func (l *loader) answer(r posRequest, found map[string]*filePositions) Position {
	for _, n := range r.at {
		if pos, ok := found[n.file].lookup(n.path); ok {
			return pos
		}
	}
	if r.fallback != nil && r.fallback.File != "" {
		return *r.fallback
	}
	return Position{File: l.path}
}

// filePositions holds what one scan found: the position of each asked-for
// key, and of the first key under each asked-for node.
type filePositions struct {
	exact, first map[string]Position
}

func (fp *filePositions) lookup(path []string) (Position, bool) {
	if fp == nil {
		return Position{}, false
	}
	k := joinPath(path)
	if pos, ok := fp.exact[k]; ok {
		return pos, true
	}
	pos, ok := fp.first[k]
	return pos, ok
}

// scanPositions scans one file for the paths in set.
func (l *loader) scanPositions(file string, set *pathSet) *filePositions {
	fp := &filePositions{exact: map[string]Position{}, first: map[string]Position{}}
	data, ok := l.files.data[file]
	if !ok {
		return fp
	}
	hits := scanKeys(data, looksJSON(data), set.want)
	li := newLineIndex(data)
	display := l.files.displayFile(file)
	for _, h := range hits {
		line, col := li.pos(h.off)
		pos := Position{File: display, Line: line, Column: col}
		if k := joinPath(h.path); set.m[k] {
			fp.exact[k] = pos
		}
		if k := joinPath(h.path[:len(h.path)-1]); set.m[k] {
			if _, seen := fp.first[k]; !seen {
				fp.first[k] = pos
			}
		}
	}
	return fp
}

func joinPath(p []string) string { return strings.Join(p, "\x00") }

// pathSet is the set of key paths asked for in one file, cheap to test
// for every key the scanner meets.
type pathSet struct {
	m        map[string]bool
	heads    map[string]bool // first keys of the paths in m
	maxDepth int
	buf      []byte
}

func newPathSet() *pathSet {
	return &pathSet{m: map[string]bool{}, heads: map[string]bool{}}
}

func (s *pathSet) add(p []string) {
	s.m[joinPath(p)] = true
	s.maxDepth = max(s.maxDepth, len(p))
	if len(p) > 0 {
		s.heads[p[0]] = true
	}
}

// want keeps a key that is asked for, or any key under a node that is
// (the first one places the node: the scanner reports keys, and a sequence
// item or a whole file is placed at its first key).
func (s *pathSet) want(p []string) bool {
	if len(p) > s.maxDepth+1 {
		return false
	}
	if !s.heads[p[0]] {
		return len(p) == 1 && s.m[""]
	}
	return s.has(p) || s.has(p[:len(p)-1])
}

// has looks p up without allocating a joined string.
func (s *pathSet) has(p []string) bool {
	s.buf = s.buf[:0]
	for i, k := range p {
		if i > 0 {
			s.buf = append(s.buf, 0)
		}
		s.buf = append(s.buf, k...)
	}
	return s.m[string(s.buf)]
}
