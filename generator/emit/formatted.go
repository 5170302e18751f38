package emit

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// The files of tool and operation variables are most of a big API's Go
// (Kubernetes: 4.5 MB), and go/format spent most of generation's
// rendering time on them: go/printer measures every nested composite
// literal by printing it again, once per level. Their literals are
// therefore written directly in go/format's layout, and only a skeleton
// of each file (its comments, and a short placeholder per variable) goes
// through jennifer and go/format. TestFormattedMatchesGofmt holds the
// layout to go/format's on seeded random definitions.

// errUnformatted says a literal holds something the direct layout does
// not cover (a type of a package other than the runtime's, a line
// longer than go/printer aligns); its file is then rendered whole by
// jennifer and go/format.
var errUnformatted = fmt.Errorf("literal outside the direct layout")

// maxFormattedLine bounds a line written directly: go/printer stops
// aligning an element past 1e6 bytes, which the direct layout does not
// model.
const maxFormattedLine = 1 << 19

// formatted writes n as go/format lays out a composite literal that
// jennifer rendered one element per line (multi) or on one line
// (inline), the literal's own lines indented by depth tabs.
func formatted(n *litNode, depth int) (string, error) {
	var b strings.Builder
	if err := writeFormatted(&b, n, depth); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeFormatted(b *strings.Builder, n *litNode, depth int) error {
	if n.token != "" {
		b.WriteString(n.token)
		return nil
	}
	if n.amp {
		b.WriteByte('&')
	}
	if n.typ != nil {
		t, err := typeText(n.typ)
		if err != nil {
			return err
		}
		b.WriteString(t)
	}
	if !n.multi {
		return writeInline(b, n, depth)
	}
	return writeMulti(b, n, depth)
}

// writeInline writes the elements on one line, as go/format keeps a
// list jennifer wrote on one line (a raw string spanning lines in it
// adds no line break: go/printer counts lines from where the string
// ends).
func writeInline(b *strings.Builder, n *litNode, depth int) error {
	b.WriteByte('{')
	for i, e := range n.elems {
		if i > 0 {
			b.WriteString(", ")
		}
		if n.keys != nil {
			b.WriteString(n.keys[i])
			b.WriteString(": ")
		}
		if err := writeFormatted(b, e, depth); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// element is one element of a multi-line list, written.
type element struct {
	key, value string
	// size is what go/printer weighs alignment by: a key's printed
	// size in bytes, 0 for an element spanning lines.
	size int
}

// writeMulti writes one element per line. Keyed elements that fit on
// one line align their values in sections; a section ends at an element
// spanning lines and where go/printer's key-size ratio rule starts a new
// one (exprList in go/printer/nodes.go).
func writeMulti(b *strings.Builder, n *litNode, depth int) error {
	if len(n.elems) == 0 {
		b.WriteString("{}")
		return nil
	}
	elems := make([]element, len(n.elems))
	for i, e := range n.elems {
		v, err := formatted(e, depth+1)
		if err != nil {
			return err
		}
		el := element{value: v}
		if n.keys != nil {
			el.key = n.keys[i]
		}
		if !strings.Contains(v, "\n") {
			if len(el.key)+len(v) > maxFormattedLine {
				return errUnformatted
			}
			el.size = len(el.key)
		}
		elems[i] = el
	}
	b.WriteString("{\n")
	aligned := n.keys != nil && len(elems) > 1
	for _, sec := range sections(elems) {
		width := 0
		for _, el := range sec {
			width = max(width, utf8.RuneCountInString(el.key)+1)
		}
		for _, el := range sec {
			writeTabs(b, depth+1)
			if n.keys != nil {
				b.WriteString(el.key)
				b.WriteByte(':')
				pad := 1
				if aligned && el.size > 0 {
					pad = width - utf8.RuneCountInString(el.key)
				}
				b.WriteString(strings.Repeat(" ", pad))
			}
			b.WriteString(el.value)
			b.WriteString(",\n")
		}
	}
	writeTabs(b, depth)
	b.WriteByte('}')
	return nil
}

// sections splits a list's elements where go/printer breaks alignment
// (a formfeed instead of a newline): around every element spanning
// lines, and where a key longer than 40 bytes, or following one, is 2.5
// times longer or shorter than the geometric mean of the keys before it
// in its section.
func sections(elems []element) [][]element {
	const smallSize, ratioLimit = 40, 2.5
	var out [][]element
	start := 0
	lnsum, count := 0.0, 0
	for i, el := range elems {
		useFF := true
		if i > 0 {
			prev := elems[i-1].size
			if prev > 0 && el.size > 0 {
				if count == 0 || prev <= smallSize && el.size <= smallSize {
					useFF = false
				} else {
					geomean := math.Exp(lnsum / float64(count))
					ratio := float64(el.size) / geomean
					useFF = ratioLimit*ratio <= 1 || ratioLimit <= ratio
				}
			}
			if useFF {
				// a formfeed also restarts the mean (nbreaks > 1)
				out = append(out, elems[start:i])
				start = i
				lnsum, count = 0, 0
			}
		}
		if el.size > 0 {
			lnsum += math.Log(float64(el.size))
			count++
		}
	}
	return append(out, elems[start:])
}

func writeTabs(b *strings.Builder, n int) {
	for range n {
		b.WriteByte('\t')
	}
}

// typeText writes a type as the generated files name it: the runtime's
// types by their package name, which every such file imports; a type of
// any other package is outside the direct layout.
func typeText(t reflect.Type) (string, error) {
	if t.Name() != "" && t.PkgPath() != "" {
		if t.PkgPath() != runtimePath {
			return "", errUnformatted
		}
		return "runtime." + t.Name(), nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		s, err := typeText(t.Elem())
		return "*" + s, err
	case reflect.Slice:
		s, err := typeText(t.Elem())
		return "[]" + s, err
	case reflect.Map:
		k, err := typeText(t.Key())
		if err != nil {
			return "", err
		}
		v, err := typeText(t.Elem())
		return "map[" + k + "]" + v, err
	}
	return t.Kind().String(), nil
}

// varDecl is one variable of a file of definitions: its doc comment
// lines ("" for an empty comment line), its name and its value.
type varDecl struct {
	what  string // what it defines, for errors ("tool get_pet")
	doc   []string
	name  string
	value reflect.Value
}

// varsFile renders a file of variables, each a definition literal. The
// literals are written in go/format's layout; jennifer and go/format
// render the rest (header, imports, doc comments) around a placeholder
// per variable, which the literal then replaces. A literal outside the
// direct layout renders the whole file through jennifer and go/format.
func varsFile(srv *ir.Server, decls []varDecl) ([]byte, error) {
	nodes := make([]*litNode, len(decls))
	texts := make([]string, len(decls))
	direct := true
	for i, d := range decls {
		n, err := valueNode(d.value, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.what, err)
		}
		nodes[i] = n
		if direct {
			texts[i], err = formatted(n, 0)
			direct = err == nil && n.typ != nil
		}
	}
	if !direct {
		return renderVars(srv, decls, nodes, false)
	}
	skeleton, err := renderVars(srv, decls, nodes, true)
	if err != nil {
		return nil, err
	}
	return splice(skeleton, decls, nodes, texts)
}

// renderVars renders a file of variables with jennifer and go/format:
// whole, or as a skeleton with a placeholder for each literal.
func renderVars(srv *ir.Server, decls []varDecl, nodes []*litNode, skeleton bool) ([]byte, error) {
	f := newFile(srv, srv.Package)
	for i, d := range decls {
		for _, line := range d.doc {
			f.Comment(line)
		}
		var value jen.Code
		if skeleton {
			value = placeholder(nodes[i])
		} else {
			value = nodes[i].code()
		}
		f.Var().Id(d.name).Op("=").Add(value)
		f.Line()
	}
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// placeholder stands for a literal in the skeleton: its type with no
// elements, on one line, so that it imports what the literal needs.
func placeholder(n *litNode) jen.Code {
	lit := typeCode(n.typ).Values()
	if n.amp {
		return jen.Op("&").Add(lit)
	}
	return lit
}

// splice replaces each variable's placeholder line in the formatted
// skeleton with its literal.
func splice(skeleton []byte, decls []varDecl, nodes []*litNode, texts []string) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(skeleton) + totalLen(texts))
	rest := skeleton
	for i, d := range decls {
		ph, err := formatted(&litNode{typ: nodes[i].typ, amp: nodes[i].amp, multi: true}, 0)
		if err != nil {
			return nil, err
		}
		line := "\nvar " + d.name + " = "
		at := bytes.Index(rest, []byte(line+ph+"\n"))
		if at < 0 {
			return nil, fmt.Errorf("the placeholder of %s is missing from its formatted file", d.name)
		}
		at += len(line)
		out.Write(rest[:at])
		out.WriteString(texts[i])
		rest = rest[at+len(ph):]
	}
	out.Write(rest)
	return out.Bytes(), nil
}

func totalLen(texts []string) int {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	return n
}
