package scaffold

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Limits on the input listing: enough to curate by, short enough to read.
const (
	maxInputLines = 30
	maxInputDesc  = 100
	maxEnumShown  = 6
	maxActionsFor = 3
)

// inputSchema is the part of a tool's input schema the listing reads.
type inputSchema struct {
	Properties map[string]map[string]any `json:"properties"`
	Required   []string                  `json:"required"`
	Defs       map[string]any            `json:"$defs"`
}

// inputLines lists the inputs of a tool the draft generates, one
// "name: type (required) — description" line each: the schema the model
// will see, as generator/mapping builds it, not a guess of it.
func inputLines(t *ir.Tool) []string {
	var s inputSchema
	if err := json.Unmarshal([]byte(t.InputSchema), &s); err != nil || len(s.Properties) == 0 {
		return []string{"(none)"}
	}
	used, required := actionUse(t)
	hidden := wordSet(identityInputs(t))
	var out []string
	for _, name := range inputOrder(s) {
		if hidden[name] {
			continue
		}
		p := s.Properties[name]
		line := name + ": " + typeText(p, s.Defs) + qualifier(name, s.Required, used[name], required[name], len(t.Actions))
		if d := inputDesc(name, p); d != "" {
			line += " — " + d
		}
		out = append(out, line)
	}
	if len(out) > maxInputLines {
		out = append(out[:maxInputLines:maxInputLines], fmt.Sprintf("... and %d more", len(out)-maxInputLines))
	}
	return out
}

// identityInputs are the inputs of a tool that carry the caller's own
// identity (lint's caller-identity rule): the draft binds them from the
// caller's token, so the model never fills them.
func identityInputs(t *ir.Tool) []string {
	var s inputSchema
	if json.Unmarshal([]byte(t.InputSchema), &s) != nil {
		return nil
	}
	var out []string
	for _, name := range inputOrder(s) {
		desc, _ := s.Properties[name]["description"].(string)
		if _, enum := s.Properties[name]["enum"]; !enum && lint.CallerIdentity(name, desc) {
			out = append(out, name)
		}
	}
	return out
}

// actionUse maps each input of an action tool to the actions that read it
// and the actions that require it.
func actionUse(t *ir.Tool) (used, required map[string][]string) {
	used, required = map[string][]string{}, map[string][]string{}
	for _, a := range t.Actions {
		seen := map[string]bool{}
		for _, st := range a.Steps {
			for _, b := range st.Args {
				if name := inputRef(b.Expr); name != "" && !seen[name] {
					seen[name] = true
					used[name] = append(used[name], a.Name)
				}
			}
		}
		for _, r := range a.Required {
			required[r] = append(required[r], a.Name)
		}
	}
	return used, required
}

var inputRefRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$\{input\.([A-Za-z0-9_]+)\}$`) })

func inputRef(expr string) string {
	if m := inputRefRE().FindStringSubmatch(expr); m != nil {
		return m[1]
	}
	return ""
}

// inputOrder lists "action" first, then required inputs, then the rest,
// each alphabetically.
func inputOrder(s inputSchema) []string {
	req := wordSet(s.Required)
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	rank := func(n string) int {
		switch {
		case n == "action":
			return 0
		case req[n]:
			return 1
		}
		return 2
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := rank(names[i]), rank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

// qualifier says when an input is required or read: always, or for some
// actions only.
func qualifier(name string, required, usedBy, requiredBy []string, actions int) string {
	switch {
	case wordSet(required)[name]:
		return " (required)"
	case len(requiredBy) > 0:
		return " (required for " + capped(requiredBy) + ")"
	case len(usedBy) > 0 && len(usedBy) < actions:
		return " (for " + capped(usedBy) + ")"
	}
	return ""
}

func capped(names []string) string {
	if len(names) <= maxActionsFor {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxActionsFor], ", "), len(names)-maxActionsFor)
}

// typeText names a property's type: "integer (int64)", "array of
// string", "Pet object", "string: available, pending, sold".
func typeText(p map[string]any, defs map[string]any) string {
	if ref, ok := p["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		if d, ok := defs[name].(map[string]any); ok && d["type"] != "object" && d["properties"] == nil {
			return typeText(d, nil)
		}
		return name + " object"
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if arms, ok := p[key].([]any); ok {
			return armsText(arms, defs)
		}
	}
	t := jsonType(p)
	if t == "array" {
		if items, ok := p["items"].(map[string]any); ok {
			t = "array of " + typeText(items, defs)
		}
	}
	if f, ok := p["format"].(string); ok {
		t += " (" + f + ")"
	}
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		t += ": " + enumText(enum)
	}
	return t
}

func armsText(arms []any, defs map[string]any) string {
	var parts []string
	seen := map[string]bool{}
	for _, a := range arms {
		if m, ok := a.(map[string]any); ok {
			if t := typeText(m, defs); !seen[t] {
				seen[t] = true
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, " or ")
}

func jsonType(p map[string]any) string {
	switch t := p["type"].(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " or ")
	}
	if p["properties"] != nil {
		return "object"
	}
	return "any value"
}

func enumText(enum []any) string {
	parts := make([]string, 0, len(enum))
	for _, v := range enum {
		if len(parts) == maxEnumShown {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprint(v))
	}
	return strings.Join(parts, ", ")
}

// forActionRE is the note mapping puts before the description of an
// input only some actions read; the listing says that in its qualifier.
var forActionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^For action [^.]*\.\s*`) })

// inputDesc is the first sentence of a property's description; for the
// action input, what its values are.
func inputDesc(name string, p map[string]any) string {
	d, _ := p["description"].(string)
	if name == "action" {
		return "which action to run"
	}
	d = forActionRE().ReplaceAllString(d, "")
	d = strings.Join(strings.Fields(d), " ")
	return oa2mcpimpl.Clip(oa2mcpimpl.FirstSentence(d, len(d)), maxInputDesc)
}
