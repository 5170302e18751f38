package overrides

import (
	"fmt"
	"regexp"
	"sort"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/diag"
)

var (
	toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })
	// nameRE is the one rule for names the file gives: step ids, input
	// names, handle state fields (a letter, then letters, digits and _,
	// at most 64 bytes).
	nameRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`) })
	goIdentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	typeNames = map[string]bool{"": true, "string": true, "integer": true, "number": true, "boolean": true, "array": true, "object": true}
)

// checkShape finds problems visible without the spec: bad names, tools
// that are not exactly one kind, malformed bindings, conflicting field
// rewrites.
func (f *File) checkShape() diag.List {
	var l diag.List
	switch f.Select.Unused {
	case "", "keep", "drop", UnusedDiscover:
	default:
		l.Errorf(f.Pos("select.unused"), `use "keep", "drop" or "discover"`, "unknown value %q for select.unused", f.Select.Unused)
	}
	if f.Server.Extend != "" && !goIdentRE().MatchString(f.Server.Extend) {
		l.Errorf(f.Pos("server.extend"), "name a function of the generated package, e.g. extend", "server.extend %q is not a Go identifier", f.Server.Extend)
	}
	if f.Server.ToolPrefix != "" && !toolNameRE().MatchString(f.Server.ToolPrefix) {
		l.Errorf(f.Pos("server.tool_prefix"), "use letters, digits, _ and - only", "tool_prefix %q is not a valid name part", f.Server.ToolPrefix)
	}
	seen := map[string]string{}
	for i, t := range f.Tools {
		path := toolPath(i)
		if t == nil {
			l.Errorf(f.Pos(path), "remove the empty entry", "tool %d is empty", i+1)
			continue
		}
		f.checkToolName(t, path, seen, &l)
		f.checkToolKind(t, path, &l)
		for name, field := range t.Input {
			f.checkField(field, path+".input."+name, &l)
		}
		f.checkToolState(t, path, &l)
		f.checkList(t.Output, path, &l)
	}
	f.checkState(&l)
	f.checkUpstreamAuth(&l)
	return l
}

// checkList checks the numbers of output.list (a tool's or an action's,
// at path): a limit written must be a page size (absent means 20).
func (f *File) checkList(o *Output, path string, l *diag.List) {
	if o == nil || o.List == nil {
		return
	}
	at := path + ".output.list.limit"
	if _, written := f.pos[at]; written && !f.refused[at] && o.List.Limit < 1 {
		l.Errorf(f.Pos(at), "give the page size, e.g. 20, or leave limit out for 20", "output.list.limit %d is not a page size", o.List.Limit)
	}
	switch kind := o.List.PageKind; kind {
	case "", "offset", "number":
		if kind != "" && o.List.PageInput == "" {
			l.Errorf(f.Pos(path+".output.list.page_kind"), "name the input that selects the page with page_input", "output.list.page_kind %q without a page_input", kind)
		}
	default:
		l.Errorf(f.Pos(path+".output.list.page_kind"), `use "offset" (items to skip) or "number" (pages from 1)`, "unknown output.list.page_kind %q", kind)
	}
}

func (f *File) checkToolName(t *Tool, path string, seen map[string]string, l *diag.List) {
	switch {
	case t.Name == "":
		l.Errorf(f.Pos(path), "add name: verb_object, e.g. find_pets", "tool has no name")
	case !toolNameRE().MatchString(f.Server.ToolPrefix + "_" + t.Name):
		l.Errorf(f.Pos(path+".name"), "use at most 64 letters, digits, _ and - (prefix included)", "tool name %q is not valid", t.Name)
	case seen[t.Name] != "":
		l.Errorf(f.Pos(path+".name"), "rename one of them", "tool name %q is used twice (first at %s)", t.Name, seen[t.Name])
	default:
		seen[t.Name] = f.Pos(path + ".name").String()
	}
}

func (f *File) checkToolKind(t *Tool, path string, l *diag.List) {
	kinds := 0
	for _, set := range []bool{t.Operation != "", len(t.Steps) > 0, len(t.Actions) > 0} {
		if set {
			kinds++
		}
	}
	if kinds == 0 && (t.UpdatesHandle != nil || f.pureStateTool(t)) {
		return // a pure state tool, checked with the state settings
	}
	if kinds != 1 {
		l.Errorf(f.Pos(path), "give exactly one of operation, steps or actions", "tool %q has %d of operation, steps and actions", t.Name, kinds)
	}
	f.checkSteps(t.Steps, path+".steps", l)
	names := make([]string, 0, len(t.Actions))
	for name := range t.Actions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a, ap := t.Actions[name], path+".actions."+name
		if a == nil || (a.Operation == "") == (len(a.Steps) == 0) {
			l.Errorf(f.Pos(ap), "give the action exactly one of operation or steps", "action %q of tool %q is incomplete", name, t.Name)
			continue
		}
		if !nameRE().MatchString(name) {
			l.Errorf(f.Pos(ap), "use a short identifier such as get or cancel", "action name %q is not valid", name)
		}
		f.checkSteps(a.Steps, ap+".steps", l)
		for in, field := range a.Input {
			f.checkField(field, ap+".input."+in, l)
		}
		f.checkList(a.Output, ap, l)
	}
}

func (f *File) checkSteps(steps []*Step, path string, l *diag.List) {
	ids := map[string]bool{}
	for i, s := range steps {
		sp := fmt.Sprintf("%s[%d]", path, i)
		if s == nil || s.Operation == "" {
			l.Errorf(f.Pos(sp), "add operation: OPERATION_ID", "step %d has no operation", i+1)
			continue
		}
		if s.ID == "" {
			s.ID = fmt.Sprintf("step%d", i+1)
		}
		if !nameRE().MatchString(s.ID) {
			l.Errorf(f.Pos(sp+".id"), "use letters, digits and _ starting with a letter", "step id %q is not valid", s.ID)
		}
		if ids[s.ID] {
			l.Errorf(f.Pos(sp+".id"), "give each step its own id", "step id %q is used twice", s.ID)
		}
		ids[s.ID] = true
		for arg, v := range s.Args {
			if _, err := ParseExpr(v); err != nil {
				l.Errorf(f.Pos(sp+".args."+arg), "write ${input.NAME}, ${steps.ID.body.FIELD}, ${steps.ID.status}, ${env.VAR}, ${config.NAME} or ${identity.CLAIM}", "binding for %q: %v", arg, err)
			}
		}
	}
}

func (f *File) checkField(fd *Field, path string, l *diag.List) {
	if fd == nil {
		return
	}
	hidden := 0
	for _, set := range []bool{fd.Value != nil, fd.Env != "", fd.Config != "", fd.Identity != "", fd.Drop} {
		if set {
			hidden++
		}
	}
	if hidden > 1 {
		l.Errorf(f.Pos(path), "keep one of value, env, config, identity and drop", "input %q is hidden in more than one way", lastSegment(path))
	}
	if !typeNames[fd.Type] {
		l.Errorf(f.Pos(path+".type"), "use string, integer, number, boolean, array or object", "unknown type %q", fd.Type)
	}
	if fd.Pattern != "" {
		if _, err := regexp.Compile(fd.Pattern); err != nil {
			l.Errorf(f.Pos(path+".pattern"), "write an RE2 regular expression", "pattern does not compile: %v", err)
		}
	}
	if fd.Rename != "" && !regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`).MatchString(fd.Rename) {
		l.Errorf(f.Pos(path+".rename"), "use letters, digits, _, . and - only", "rename %q is not a valid property name", fd.Rename)
	}
}

func lastSegment(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return path
}
