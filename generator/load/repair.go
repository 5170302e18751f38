package load

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Error handling for a failed kin-openapi load. kin stops at the first
// problem; to report every broken $ref at once, each one found is reported,
// then blanked in the in-memory copy of its file (the "$ref" key becomes
// "x-br", same length, same line) and the load is retried.

var (
	quotedRefRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:reference|in URI:|bad data in) "((?:[^"\\]|\\.)*)"`)
	})
	yamlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)(?:, column (\d+))?: ([^;]*)`) })
)

// repair reports err and returns true when it blanked something, so that
// another load may find further problems.
func (l *loader) repair(err error) bool {
	var re *refReadError
	if errors.As(err, &re) {
		return l.repairRead(re)
	}
	var pe *parseError
	if errors.As(err, &pe) || strings.Contains(err.Error(), "failed to unmarshal") {
		file := l.files.lastRead
		if pe != nil {
			file = pe.file
		}
		if file == "" {
			file = l.files.entryURL().String()
		}
		l.reportParse(file, err)
		return false
	}
	if m := quotedRefRe().FindStringSubmatch(err.Error()); m != nil {
		ref, _ := strconv.Unquote(`"` + m[1] + `"`)
		cause := scrubGoTypes(shortCause(err.Error()))
		if strings.Contains(cause, ref) {
			cause = "nothing in the document is at that location"
		}
		if n := l.blankRefs(func(_ string, v string) bool { return v == ref }, func(pos Position) {
			l.probs.Errorf(pos, "fix the reference or add what it points to", "$ref %q cannot be resolved: %s", ref, cause)
		}); n > 0 {
			return true
		}
		if pos, ok := l.findText(ref); ok {
			l.probs.Errorf(pos, "fix the reference or add what it points to", "$ref %q cannot be resolved: %s", ref, cause)
			return false
		}
	}
	l.probs.Errorf(Position{File: l.path}, "fix the spec so that it loads", "cannot load the spec: %s", scrubGoTypes(err.Error()))
	return false
}

// findText locates the first occurrence of text in the loaded files. It
// places problems in constructs the key scanner does not follow, such as
// YAML anchors and multi-line quoted scalars.
func (l *loader) findText(text string) (Position, bool) {
	for _, key := range l.files.order {
		data := l.files.data[key]
		if i := bytes.Index(data, []byte(text)); i >= 0 {
			line, col := newLineIndex(data).pos(i)
			return Position{File: l.files.displayFile(key), Line: line, Column: col}, true
		}
	}
	return Position{}, false
}

// shortCause keeps the innermost part of a chain of wrapped messages.
func shortCause(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		return msg[i+2:]
	}
	return msg
}

// repairRead handles a referenced file that could not be read.
func (l *loader) repairRead(re *refReadError) bool {
	match := func(fileKey, v string) bool { return refTargetFile(fileKey, v) == re.url }
	report := func(pos Position) {
		switch {
		case errors.Is(re.cause, errRemoteRefused):
			u, _ := url.Parse(re.url)
			host := ""
			if u != nil {
				host = u.Hostname()
			}
			l.probs.Errorf(pos, fmt.Sprintf("download the file and refer to it by a relative path, or allow the host with --allow-remote-refs %s", host),
				"remote $ref to %s is not allowed", re.url)
		default:
			l.probs.Errorf(pos, "fix the path of the reference", "$ref to %s cannot be read: %v", l.files.displayFile(re.url), re.cause)
		}
	}
	if l.blankRefs(match, report) > 0 {
		return true
	}
	report(Position{File: l.path})
	return false
}

// refTargetFile resolves the file part of ref against the file holding it.
func refTargetFile(fileKey, ref string) string {
	file, _, _ := strings.Cut(ref, "#")
	if file == "" {
		return ""
	}
	u, err := url.Parse(file)
	if err != nil {
		return ""
	}
	if u.IsAbs() {
		return u.String()
	}
	base, err := url.Parse(fileKey)
	if err != nil {
		return ""
	}
	if base.Scheme != "" {
		return base.ResolveReference(u).String()
	}
	if path.IsAbs(u.Path) {
		return (&url.URL{Path: u.Path}).String()
	}
	return (&url.URL{Path: path.Join(path.Dir(base.Path), u.Path)}).String()
}

// blankRefs finds every $ref whose value matches, reports its position and
// renames its key in the file set. Returns how many were blanked.
func (l *loader) blankRefs(match func(fileKey, value string) bool, report func(Position)) int {
	n := 0
	for _, key := range l.files.order {
		data := l.files.data[key]
		isJSON := looksJSON(data)
		hits := scanKeys(data, isJSON, func(p []string) bool { return p[len(p)-1] == "$ref" })
		var edits []edit
		var li *lineIndex
		for _, h := range hits {
			if !match(key, h.value) {
				continue
			}
			if li == nil {
				li = newLineIndex(data)
			}
			line, col := li.pos(h.off)
			pos := Position{File: l.files.displayFile(key), Line: line, Column: col}
			report(pos)
			at := h.off
			if data[at] == '"' || data[at] == '\'' {
				at++
			}
			edits = append(edits, edit{off: at, n: 4, text: "x-br"})
		}
		if len(edits) > 0 {
			l.files.data[key] = applyEdits(data, edits)
			n += len(edits)
		}
	}
	return n
}

// reportParse turns a decode failure into positioned problems, in the
// words of the document (see decode_errors.go).
func (l *loader) reportParse(fileKey string, err error) {
	display := l.files.displayFile(fileKey)
	data := l.files.data[fileKey]
	if p, ok := syntaxProblem(display, data); ok {
		l.probs = append(l.probs, p)
		return
	}
	msg := err.Error()
	if ms := yamlLineRe().FindAllStringSubmatch(msg, -1); ms != nil {
		found := make([]decodeProblem, len(ms))
		set := newPathSet()
		for i, m := range ms {
			found[i] = describeDecodeError(m[3])
			if toks := pointerTokens(found[i].pointer); len(toks) > 0 {
				set.add(toks)
			}
		}
		// One scan places them all: a broken file may have thousands.
		fp := l.scanPositions(fileKey, set)
		for i, m := range ms {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			pos := Position{File: display, Line: line, Column: col}
			if toks := pointerTokens(found[i].pointer); len(toks) > 0 {
				if p, ok := fp.exact[joinPath(toks)]; ok {
					pos = p
				}
			}
			l.probs.Errorf(pos, found[i].fix, "%s", found[i].msg)
		}
		return
	}
	d := describeDecodeError(shortCause(msg))
	l.probs.Errorf(Position{File: display}, "fix the file so that it is valid OpenAPI", "cannot decode the spec: %s", d.msg)
}
