package scaffold

import (
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// draftPageSize is the page a drafted list tool returns: small, as the
// tool design asks of long lists.
const draftPageSize = 20

// listDraft is the paging a one-operation list tool is drafted with
// (output.list): where the list is in the response, the input that
// selects the page, and how the operation's own page size is bound.
type listDraft struct {
	path      string // "" when the response is the list itself
	pageInput string
	pageKind  string // "offset" or "number"
	// newInput is true when no operation parameter selects the page:
	// the server pages the whole list, by an input of the tool's own.
	newInput bool
	// limitInput is the operation's page-size input, bound to the page
	// size; "" when it has none.
	limitInput string
}

// Parameter names that select a page or its size, lower case.
var (
	offsetNames = map[string]bool{"offset": true, "skip": true, "start": true}
	pageNames   = map[string]bool{"page": true, "page_number": true, "pagenumber": true}
	limitNames  = map[string]bool{"limit": true, "per_page": true, "perpage": true, "page_size": true, "pagesize": true,
		"size": true, "max_results": true, "maxresults": true, "count": true, "top": true}
)

// listPaging works out the paging of a candidate that is one GET of a
// collection answering a JSON list (or an object holding one list);
// ok is false for anything else, which is drafted without paging.
func (d *draft) listPaging(c *candidate) (listDraft, bool) {
	if len(c.ops) != 1 || c.ops[0].def == nil || c.ops[0].def.Op == nil {
		return listDraft{}, false
	}
	o := c.ops[0]
	if o.op.Method != "GET" || o.shape.item || o.shape.action != "" {
		return listDraft{}, false
	}
	if o.shape.singleton {
		return listDraft{}, false
	}
	path, ok := d.listPath(o.op)
	if !ok {
		return listDraft{}, false
	}
	ld := listDraft{path: path, pageKind: "offset"}
	otherPaging := false
	for _, p := range o.op.Parameters {
		if p.In != "query" {
			continue
		}
		arg, name := argOf(o, p.Name), strings.ToLower(p.Name)
		integer := d.isInteger(p.Schema)
		switch {
		case integer && arg != "" && offsetNames[name] && ld.pageInput == "":
			ld.pageInput = arg
		case integer && arg != "" && pageNames[name] && ld.pageInput == "":
			ld.pageInput, ld.pageKind = arg, "number"
		case integer && arg != "" && limitNames[name] && ld.limitInput == "" && d.allows(p.Schema, draftPageSize):
			ld.limitInput = arg
		case offsetNames[name] || pageNames[name] || limitNames[name] || cursorName(name):
			otherPaging = true
		}
	}
	switch {
	case otherPaging:
		// A cursor, or a page size or position of another kind: the
		// drafted paging would misreport what the upstream holds.
		return listDraft{}, false
	case ld.pageInput != "" && ld.limitInput != "":
		// The upstream pages: its page size is bound to the tool's.
	case ld.pageInput == "" && ld.limitInput == "":
		// The upstream answers the whole list; the server pages it.
		if slices.Contains(ir.PropertyNames(o.def.InputSchema), "offset") {
			return listDraft{}, false
		}
		ld.pageInput, ld.newInput = "offset", true
	default:
		// A position without a size (or the reverse): the upstream's page
		// size is unknown, so a full page cannot be told from the last.
		return listDraft{}, false
	}
	return ld, true
}

// cursorPaging finds a one-operation list paged by cursor: the query
// input that takes the cursor and the response field that gives the next
// one (cursor/next, page_token/next_page_token). The override format
// pages by offset or page number only, so the draft says in a comment how
// the model reaches the next page instead of drafting a paging that
// would misreport the list.
func (d *draft) cursorPaging(c *candidate) (input, next string, ok bool) {
	if len(c.ops) != 1 || c.ops[0].def == nil || c.ops[0].def.Op == nil || !isRead(c.ops[0].op.Method) {
		return "", "", false
	}
	o := c.ops[0]
	for _, p := range o.op.Parameters {
		if name := strings.ToLower(p.Name); p.In == "query" && cursorName(name) && !strings.Contains(name, "before") {
			input = argOf(o, p.Name)
			break
		}
	}
	if input == "" {
		return "", "", false
	}
	for _, r := range o.op.Responses {
		if !strings.HasPrefix(r.Status, "2") {
			continue
		}
		for _, name := range d.doc.PropertyNames(r.Schema) {
			switch strings.ToLower(mapping.SnakeCase(name)) {
			case "next", "next_cursor", "cursor", "next_page_token", "next_token", "next_page", "next_marker", "continue":
				return input, name, true
			}
		}
		return "", "", false
	}
	return "", "", false
}

// cursorName reports a query parameter that pages by cursor or token.
func cursorName(name string) bool {
	switch name {
	case "after", "before", "starting_after", "ending_before", "marker", "continue":
		return true
	}
	return strings.Contains(name, "cursor") || strings.Contains(name, "token")
}

// argOf is the tool input that carries the operation's query parameter
// name in the default tool; "" when none does.
func argOf(o *opInfo, name string) string {
	for _, p := range o.def.Op.Params {
		if p.In == runtime.InQuery && p.Name == name {
			return p.Arg
		}
	}
	return ""
}

// listPath finds the list in the operation's first 2xx JSON response: the
// response itself, or its one array property.
func (d *draft) listPath(op *load.Operation) (string, bool) {
	for _, r := range op.Responses {
		if !strings.HasPrefix(r.Status, "2") {
			continue
		}
		if r.Sequential || r.Schema == nil || !oa2mcpimpl.IsJSONMedia(r.MediaType) {
			return "", false
		}
		s := d.doc.Resolve(r.Schema)
		if s == nil {
			return "", false
		}
		if s.Type == "array" {
			return "", d.isRecordList(s)
		}
		var arrays []string
		for _, name := range d.doc.PropertyNames(s) {
			if p := d.doc.Resolve(d.doc.Property(s, name)); p != nil && p.Type == "array" {
				arrays = append(arrays, name)
			}
		}
		if len(arrays) == 1 && isPathWord(arrays[0]) && listKey(arrays[0], op.Path) {
			return arrays[0], d.isRecordList(d.doc.Resolve(d.doc.Property(s, arrays[0])))
		}
		return "", false
	}
	return "", false
}

// isRecordList reports an array of records (objects): a list a user
// pages through. An array of booleans or numbers answers item by item
// for the ids given (GET /me/tracks/contains?ids=a,b is [true, false]),
// and a page of it would mean nothing.
func (d *draft) isRecordList(arr *load.Schema) bool {
	if arr == nil || arr.Items == nil {
		return false
	}
	it := d.doc.Resolve(arr.Items)
	return it != nil && (it.Type == "object" || len(d.doc.PropertyNames(it)) > 0)
}

// totalPath is the property beside the list that counts the whole list
// (limit/offset/total paging), "" when there is none.
func (d *draft) totalPath(op *load.Operation, list string) string {
	if list == "" {
		return ""
	}
	for _, r := range op.Responses {
		if !strings.HasPrefix(r.Status, "2") {
			continue
		}
		for _, name := range []string{"total", "total_count", "totalCount", "count", "total_results", "totalResults"} {
			if p := d.doc.Resolve(d.doc.Property(r.Schema, name)); p != nil && p.Type == "integer" {
				return name
			}
		}
		return ""
	}
	return ""
}

// listKey reports a property name that says it holds the response's
// list: a usual wrapper key, or the collection's own name (/regions ->
// regions). Another object with one array property (a record with its
// tags) is no list.
func listKey(name, path string) bool {
	switch strings.ToLower(name) {
	case "items", "data", "results", "records", "entries", "values", "list", "elements", "objects", "content":
		return true
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	last := strings.ToLower(mapping.SnakeCase(segs[len(segs)-1]))
	return last != "" && strings.ToLower(mapping.SnakeCase(name)) == last
}

// isPathWord reports a property name a result path can name as is.
func isPathWord(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func (d *draft) isInteger(s *load.Schema) bool {
	s = d.doc.Resolve(s)
	return s != nil && s.Type == "integer"
}

// allows reports whether an integer schema admits n.
func (d *draft) allows(s *load.Schema, n float64) bool {
	s = d.doc.Resolve(s)
	return s != nil && (s.Minimum == nil || *s.Minimum <= n) && (s.Maximum == nil || *s.Maximum >= n)
}
