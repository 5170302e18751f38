// Package scaffold drafts an override file for an existing API, so people
// curate task tools instead of starting from a blank page. It groups
// operations by tag and resource, folds several operations on one
// resource into an action tool, drafts descriptions from the spec and
// marks weak spots with TODO comments.
package scaffold

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// maxActions splits very large groups: an action enum past this size is
// hard for a model to choose from.
const maxActions = 12

// group is one candidate task tool.
type group struct {
	name string
	tag  string
	ops  []*load.Operation
}

// Draft returns the text of an override file for doc.
func Draft(doc *load.Document) []byte {
	groups := groupOperations(doc.Operations)
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=https://raw.githubusercontent.com/oa2mcp/oa2mcp/main/overrides/schema.json\n")
	fmt.Fprintf(&b, "# Draft task tools for %s, written by oa2mcp init: %d operations in %d tools.\n", doc.Title, len(doc.Operations), len(groups))
	b.WriteString("# Curate it: merge or split tools, rewrite descriptions in task language,\n# hide inputs the model should not fill, and resolve every TODO. See docs/overrides.md.\n")
	b.WriteString("version: 1\nserver:\n")
	fmt.Fprintf(&b, "  title: %s\n", quote(doc.Title))
	b.WriteString("  # TODO: instructions: what the server is for, in two or three sentences.\n")
	b.WriteString("select:\n  unused: drop\ntools:\n")
	for _, g := range groups {
		writeGroup(&b, g)
	}
	return []byte(b.String())
}

// groupOperations groups by first tag and resource noun, in a stable
// order, naming each group uniquely.
func groupOperations(ops []*load.Operation) []*group {
	byKey := map[string]*group{}
	var order []string
	for _, op := range ops {
		tag := ""
		if len(op.Tags) > 0 {
			tag = op.Tags[0]
		}
		key := snake(tag) + "|" + resource(op.Path)
		g := byKey[key]
		if g == nil {
			g = &group{name: groupName(tag, resource(op.Path)), tag: tag}
			byKey[key] = g
			order = append(order, key)
		}
		g.ops = append(g.ops, op)
	}
	sort.Strings(order)
	var out []*group
	seen := map[string]int{}
	for _, key := range order {
		if g := byKey[key]; len(g.ops) == 1 {
			g.name = actionID(g.ops[0])
		}
		for i, part := range split(byKey[key]) {
			if i > 0 {
				part.name = fmt.Sprintf("%s_%d", part.name, i+1)
			}
			if n := seen[part.name]; n > 0 {
				part.name = fmt.Sprintf("%s_%d", part.name, n+1)
			}
			seen[part.name]++
			out = append(out, part)
		}
	}
	return out
}

func split(g *group) []*group {
	if len(g.ops) <= maxActions {
		return []*group{g}
	}
	var out []*group
	for i := 0; i < len(g.ops); i += maxActions {
		end := min(i+maxActions, len(g.ops))
		out = append(out, &group{name: g.name, tag: g.tag, ops: g.ops[i:end]})
	}
	return out
}

// resource is the last literal path segment: the noun operations act on.
func resource(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if s := segs[i]; s != "" && !strings.HasPrefix(s, "{") {
			return snake(s)
		}
	}
	return "root"
}

func groupName(tag, res string) string {
	name := res
	if t := snake(tag); t != "" && t != res && !strings.HasSuffix(t, res) {
		name = t + "_" + res
	}
	name = "manage_" + name
	if len(name) > 56 {
		name = name[:56]
	}
	return strings.Trim(name, "_")
}

// writeGroup writes one tool: an operation tool for a single operation,
// else an action tool.
func writeGroup(b *strings.Builder, g *group) {
	if len(g.ops) == 1 {
		op := g.ops[0]
		fmt.Fprintf(b, "  - name: %s\n", g.name)
		fmt.Fprintf(b, "    title: %s\n", quote(title(op)))
		writeDescription(b, []*load.Operation{op})
		fmt.Fprintf(b, "    operation: %s\n", quote(opRef(op)))
		return
	}
	fmt.Fprintf(b, "  - name: %s\n", g.name)
	fmt.Fprintf(b, "    title: %s\n", quote("Manage "+strings.ReplaceAll(strings.TrimPrefix(g.name, "manage_"), "_", " ")))
	writeDescription(b, g.ops)
	b.WriteString("    actions:\n")
	for _, a := range actionNames(g.ops) {
		fmt.Fprintf(b, "      %s:\n", a.name)
		if d := summary(a.op); d != "" {
			fmt.Fprintf(b, "        description: %s\n", quote(d))
		}
		fmt.Fprintf(b, "        operation: %s\n", quote(opRef(a.op)))
	}
}

func writeDescription(b *strings.Builder, ops []*load.Operation) {
	var parts []string
	for _, op := range ops {
		if s := summary(op); s != "" {
			parts = append(parts, strings.TrimSuffix(s, ".")+".")
		}
	}
	desc := strings.Join(parts, " ")
	if len(desc) > 400 {
		desc = desc[:400]
		if i := strings.LastIndex(desc, ". "); i > 0 {
			desc = desc[:i+1]
		}
	}
	if len(parts) < len(ops) || len(desc) < 40 {
		b.WriteString("    # TODO: the spec says little here; describe the task, when to use it and when not.\n")
	}
	b.WriteString("    # TODO: add when to use this tool and when not (name the other tool), and what it does not return.\n")
	fmt.Fprintf(b, "    description: %s\n", quote(desc))
}

type namedOp struct {
	name string
	op   *load.Operation
}

// actionNames gives each operation a short action name: a verb from the
// method and path shape, or the operationId when verbs collide.
func actionNames(ops []*load.Operation) []namedOp {
	count := map[string]int{}
	verbs := make([]string, len(ops))
	for i, op := range ops {
		verbs[i] = verb(op)
		count[verbs[i]]++
	}
	var out []namedOp
	used := map[string]bool{}
	for i, op := range ops {
		name := verbs[i]
		if count[name] > 1 {
			name = actionID(op)
		}
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s_%d", verbs[i], n)
		}
		used[name] = true
		out = append(out, namedOp{name: name, op: op})
	}
	return out
}

func verb(op *load.Operation) string {
	item := strings.HasSuffix(strings.TrimRight(op.Path, "/"), "}")
	switch op.Method {
	case "GET":
		if item {
			return "get"
		}
		return "list"
	case "POST":
		return "create"
	case "PUT":
		return "replace"
	case "PATCH":
		return "update"
	case "DELETE":
		if item {
			return "delete"
		}
		return "delete_all"
	}
	return strings.ToLower(op.Method)
}

// actionID derives an action name from the operationId (or method and
// path), kept short and identifier-safe.
func actionID(op *load.Operation) string {
	id := snake(op.ID)
	if id == "" {
		id = snake(strings.ToLower(op.Method) + " " + op.Path)
	}
	if id == "" || !unicode.IsLetter(rune(id[0])) {
		id = "op_" + id
	}
	if len(id) > 48 {
		id = strings.TrimRight(id[:48], "_")
	}
	return id
}

func opRef(op *load.Operation) string {
	if op.ID != "" {
		return op.ID
	}
	return op.Method + " " + op.Path
}

func summary(op *load.Operation) string {
	s := strings.TrimSpace(op.Summary)
	if s == "" {
		s = strings.TrimSpace(op.Description)
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160]
		if i := strings.LastIndexByte(s, ' '); i > 0 {
			s = s[:i]
		}
		s += "…"
	}
	return s
}

func title(op *load.Operation) string {
	if s := strings.TrimSuffix(summary(op), "."); s != "" && len(s) <= 80 {
		return s
	}
	return strings.ToUpper(op.Method[:1]) + strings.ToLower(op.Method[1:]) + " " + op.Path
}

// quote renders s as a YAML scalar; JSON strings are valid YAML.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// snake lower-cases s into ASCII words joined by "_".
func snake(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	return strings.Trim(b.String(), "_")
}
