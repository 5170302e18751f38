package cases

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// checkSchemas compiles every tool's input and output schema with the
// runtime's own validator, the one that will enforce them: a keyword it
// cannot enforce (a pattern Go's regexp cannot match, an unsupported
// keyword) is an error at the tool, never a check skipped at run time.
// Formats the runtime does not assert (int64, binary, ...) are only
// annotations; they are summed up in one warning per format.
func checkSchemas(srv *ir.Server, problems *diag.List) bool {
	ok := true
	type use struct {
		pos   diag.Position
		where string
	}
	formats := map[string][]use{}
	// compiled[2i] is tool i's input schema, [2i+1] its output schema,
	// compiled concurrently, then reported in tool order.
	type result struct {
		sch *oa2mcpimpl.Schema
		err error
	}
	compiled := make([]result, 2*len(srv.Tools))
	workers.ForEach(len(compiled), func(k int) {
		t := &srv.Tools[k/2]
		text := t.InputSchema
		if k%2 == 1 {
			text = t.OutputSchema
		}
		if strings.TrimSpace(text) != "" {
			compiled[k].sch, compiled[k].err = oa2mcpimpl.CompileSchema(text)
		}
	})
	for i := range srv.Tools {
		t := &srv.Tools[i]
		for k, s := range []struct{ what, text string }{{"input", t.InputSchema}, {"output", t.OutputSchema}} {
			if strings.TrimSpace(s.text) == "" {
				continue
			}
			sch, err := compiled[2*i+k].sch, compiled[2*i+k].err
			if err != nil {
				ok = false
				problems.Errorf(t.Pos, "change the schema (input: in the override file), or exclude the operation",
					"tool %s: the runtime cannot enforce its %s schema: %v", t.Name, s.what, err)
				continue
			}
			for _, f := range sch.UnassertedFormats() {
				formats[f.Format] = append(formats[f.Format], use{t.Pos, t.Name + " " + s.what + " at " + orRoot(f.Pointer)})
			}
		}
	}
	if len(formats) == 0 {
		return ok
	}
	names := make([]string, 0, len(formats))
	for f := range formats {
		names = append(names, f)
	}
	sort.Strings(names)
	var parts []string
	for _, f := range names {
		parts = append(parts, fmt.Sprintf("%s ×%d (first: %s)", f, len(formats[f]), formats[f][0].where))
	}
	problems.Warnf(formats[names[0]][0].pos, "describe such formats in words where a model must follow them",
		"formats the runtime does not check, annotations only: %s", strings.Join(parts, "; "))
	return ok
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return fmt.Sprintf("%q", p)
}
