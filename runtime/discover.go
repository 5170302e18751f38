package runtime

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
)

// Discovery mode makes an API of any size usable through three tools:
// search_operations finds an operation by what the user wants done,
// describe_operation shows its inputs, call_operation calls it. The
// operations are not listed as tools, so tools/list stays small, and an
// operation is compiled on its first call, so a server with a thousand
// of them starts as fast as one with three.

// Discovery serves the operations no task tool covers through the three
// discovery tools.
type Discovery struct {
	// Prefix starts the three tools' names, e.g. "k8s_"; may be empty.
	Prefix string
	// Topics names the API's main areas for the search tool's
	// description, e.g. "Droplets, Databases, Domains"; may be empty.
	Topics string
	// Operations are sorted by Tool.Name; each is a one-operation tool
	// as the default mapping makes it, served only through call_operation.
	Operations []*Discoverable
	// Index ranks Operations for search_operations; the generator builds
	// it with EncodeSearchIndex.
	Index string
	// Areas are the API's areas for browsing (search_operations without
	// a query), in the order the model sees them; may be empty.
	Areas []DiscoveryArea
}

// Discoverable is one operation of discovery mode.
type Discoverable struct {
	// Tool calls the operation; its Name is what describe_operation and
	// call_operation take.
	Tool *Tool
	// Returns says what a successful call returns, e.g. "a Pod object
	// with fields apiVersion, kind, metadata".
	Returns string
}

// discovery serves one server's Discovery.
type discovery struct {
	s          *Server
	def        *Discovery
	middleware []Middleware
	ops        []lazyOp

	searchOnce sync.Once
	searcher   *search.Searcher[*Discoverable]
	searchErr  error
}

// lazyOp is an operation compiled on its first call.
type lazyOp struct {
	once sync.Once
	bt   *boundTool
	err  error
}

// addDiscovery registers the three discovery tools of def, if any.
func (s *Server) addDiscovery(def *Discovery, middleware []Middleware) error {
	if def == nil {
		return nil
	}
	if err := checkDiscovery(def); err != nil {
		return err
	}
	d := &discovery{s: s, def: def, middleware: middleware, ops: make([]lazyOp, len(def.Operations))}
	for _, op := range def.Operations {
		if op.Tool.TimeoutMillis > 0 {
			s.maxTimeout = max(s.maxTimeout, msDuration(op.Tool.TimeoutMillis))
		}
	}
	s.maxTimeout = max(s.maxTimeout, s.timeout)
	for _, ts := range []*Tool{d.searchTool(), d.describeTool()} {
		if err := d.register(ts); err != nil {
			return err
		}
	}
	call := d.callTool()
	if s.tools[call.Name] != nil {
		return fmt.Errorf("tool %q is defined twice (discovery mode needs this name)", call.Name)
	}
	if err := s.addMCPTool(call, d.callHandler); err != nil {
		return fmt.Errorf("tool %q: %w", call.Name, err)
	}
	s.callOperation = d
	return nil
}

// checkDiscovery finds what would make lookups or the index fail later:
// operations out of order, and an index for another operation count.
func checkDiscovery(def *Discovery) error {
	for i, op := range def.Operations {
		if op == nil || op.Tool == nil || op.Tool.Op == nil {
			return fmt.Errorf("discovery operation %d has no tool with an operation", i)
		}
		if i > 0 && def.Operations[i-1].Tool.Name >= op.Tool.Name {
			return fmt.Errorf("discovery operations not sorted and unique at %q", op.Tool.Name)
		}
	}
	head := search.IndexHead(len(def.Operations))
	if !strings.HasPrefix(def.Index, head) {
		return fmt.Errorf("discovery index is not for these %d operations", len(def.Operations))
	}
	return checkAreas(def)
}

// register binds a discovery tool written in Go and serves it like any
// other tool: validation, access checks, limits, logging, metrics.
func (d *discovery) register(ts *Tool) error {
	s := d.s
	if s.tools[ts.Name] != nil {
		return fmt.Errorf("tool %q is defined twice (discovery mode needs this name)", ts.Name)
	}
	bt, err := s.bindTool(ts, true)
	if err != nil {
		return fmt.Errorf("tool %q: %w", ts.Name, err)
	}
	d.wrap(bt)
	s.tools[ts.Name] = bt
	if err := s.addMCPTool(ts, s.toolHandler(bt)); err != nil {
		return fmt.Errorf("tool %q: %w", ts.Name, err)
	}
	return nil
}

// wrap adds the middleware that applies to the tool by its name.
func (d *discovery) wrap(bt *boundTool) {
	for _, m := range d.middleware {
		if m.Wrap != nil && m.matchesTool(bt.spec.Name) {
			bt.middleware = append(bt.middleware, m.Wrap)
		}
	}
}

// lookup finds an operation by name, else by operationId.
func (d *discovery) lookup(name string) int {
	ops := d.def.Operations
	i := sort.Search(len(ops), func(i int) bool { return ops[i].Tool.Name >= name })
	if i < len(ops) && ops[i].Tool.Name == name {
		return i
	}
	for i, op := range ops {
		if name != "" && op.Tool.Op.OperationID == name {
			return i
		}
	}
	return -1
}

// bound compiles operation i on first use. Destructive operations get a
// confirmation question: one tool's annotations cannot warn about them.
func (d *discovery) bound(i int) (*boundTool, error) {
	lo := &d.ops[i]
	lo.once.Do(func() {
		ts := d.def.Operations[i].Tool
		if ts.Destructive && ts.Confirm == "" {
			c := *ts
			c.Confirm = confirmQuestion(ts)
			ts = &c
		}
		lo.bt, lo.err = d.s.bindTool(ts, true)
		if lo.err == nil {
			d.wrap(lo.bt)
		}
	})
	return lo.bt, lo.err
}

// confirmQuestion asks the user to confirm a destructive operation,
// naming the objects its path arguments select.
func confirmQuestion(ts *Tool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run %s %s (%s)?", ts.Op.Method, ts.Op.Path, ts.Name)
	var on []string
	for _, p := range ts.Op.Params {
		if p.In == InPath {
			on = append(on, p.Arg+"=${input."+p.Arg+"}")
		}
	}
	if len(on) > 0 {
		b.WriteString(" On " + strings.Join(on, ", ") + ".")
	}
	b.WriteString(" It is destructive: it deletes or overwrites data and may not be undone.")
	return b.String()
}

// search returns the searcher, decoding the index on first use.
func (d *discovery) search() (*search.Searcher[*Discoverable], error) {
	d.searchOnce.Do(func() { d.searcher, d.searchErr = newSearcher(d.def) })
	return d.searcher, d.searchErr
}

// newSearcher decodes the index of d. The generator's door builds its
// searcher the same way (oa2mcpimpl.NewSearcher): change both together.
func newSearcher(d *Discovery) (*search.Searcher[*Discoverable], error) {
	return search.New(d.Index, d.Operations, func(op *Discoverable) search.Op {
		name := op.Tool.Op.OperationID
		if name == "" {
			name = op.Tool.Name
		}
		return search.Op{Name: name, Method: op.Tool.Op.Method, Path: op.Tool.Op.Path}
	})
}
