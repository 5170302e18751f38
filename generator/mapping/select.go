package mapping

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// selectOperations applies x-oa2mcp-skip and the override file's include
// and exclude rules. A rule that matches nothing is a warning: it is
// usually a typo.
func selectOperations(ops []*load.Operation, ov *overrides.File, problems *diag.List) []*load.Operation {
	var out []*load.Operation
	var include, exclude []overrides.Match
	if ov != nil {
		include, exclude = ov.Select.Include, ov.Select.Exclude
	}
	hits := make([]int, len(include)+len(exclude))
	for _, op := range ops {
		if skip, _ := op.Extensions["skip"].(bool); skip {
			continue
		}
		in := len(include) == 0
		for i, m := range include {
			if matches(m, op) {
				in = true
				hits[i]++
			}
		}
		for i, m := range exclude {
			if matches(m, op) {
				in = false
				hits[len(include)+i]++
			}
		}
		if in {
			out = append(out, op)
		}
	}
	for i, n := range hits {
		if n > 0 {
			continue
		}
		key := "select.include"
		j := i
		if i >= len(include) {
			key, j = "select.exclude", i-len(include)
		}
		problems.Warnf(ov.Pos(key+"["+strconv.Itoa(j)+"]"), "check the operationId, tag, method or path", "this %s rule matches no operation", strings.TrimPrefix(key, "select."))
	}
	return out
}

// matches reports whether every field given in m matches op.
func matches(m overrides.Match, op *load.Operation) bool {
	if m.Operation != "" && m.Operation != op.ID && !strings.EqualFold(m.Operation, op.Method+" "+op.Path) {
		return false
	}
	if m.Method != "" && !strings.EqualFold(m.Method, op.Method) {
		return false
	}
	if m.Tag != "" && !containsString(op.Tags, m.Tag) {
		return false
	}
	return m.Path == "" || globMatch(m.Path, op.Path)
}

// globMatch matches a path template against a glob: "*" within one
// segment, "**" across segments.
func globMatch(glob, p string) bool {
	if !strings.Contains(glob, "**") {
		ok, _ := path.Match(glob, p)
		return ok
	}
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch {
		case strings.HasPrefix(glob[i:], "**"):
			re.WriteString(".*")
			i++
		case glob[i] == '*':
			re.WriteString("[^/]*")
		default:
			re.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), p)
	return ok
}
