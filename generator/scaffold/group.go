package scaffold

import (
	"regexp"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// maxActions splits very large tools: an action enum past this size is
// hard for a model to choose from.
const maxActions = 12

// shape is what a path says about the resource an operation acts on.
type shape struct {
	// noun is the resource, singular snake case: "pet", "order".
	noun string
	// action is a trailing action or sub-resource segment in snake case:
	// "find_by_status", "login", "status", "log"; "" for none.
	action string
	// verb is true when action is a verb (find_by_status, login), false
	// for a sub-resource (status, log, scale).
	verb bool
	// item is true when the path ends in a parameter: one resource, not
	// a collection.
	item bool
	// singleton is true when the path ends in a singular noun that is no
	// action (/store/inventory, /v1/balance): one resource without a key.
	singleton bool
}

// segment is one part of a path.
type segment struct {
	text  string
	param bool
	// method marks the last part of an RPC-style name
	// ("conversations.list"): always an action on the part before it.
	method bool
}

var (
	extensionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.(json|xml|ya?ml)$`) })
	domainRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.(io|com|org|net|dev)$`) })
)

// pathSegments drops what names no resource: empty parts, "api",
// "apis", versions (v1, v1beta1, 2010-04-01) and file extensions.
func pathSegments(path string) []segment {
	var out []segment
	for _, s := range strings.Split(path, "/") {
		s = extensionRE().ReplaceAllString(s, "")
		low := strings.ToLower(s)
		switch {
		case s == "", low == "api", low == "apis", mapping.IsVersionWord(low):
		case strings.HasPrefix(s, "{"), low == "me", low == "self", low == "mine", low == "current":
			// /members/me names one member, the caller: an item, as
			// /members/{id} does, not a resource called "me".
			out = append(out, segment{text: s, param: true})
		case strings.Contains(s, ".") && !domainRE().MatchString(low):
			out = append(out, rpcSegments(s)...)
		default:
			out = append(out, segment{text: s})
		}
	}
	return out
}

// rpcSegments splits an RPC-style name (Slack's "admin.apps.approve",
// "conversations.list") into its parts, the last one a method.
func rpcSegments(s string) []segment {
	var out []segment
	for _, part := range strings.Split(s, ".") {
		if part != "" {
			out = append(out, segment{text: part})
		}
	}
	if len(out) > 1 {
		out[len(out)-1].method = true
	}
	return out
}

// pathShape finds the resource a path acts on. The last literal segment
// is the resource, unless it is an action (findByStatus, login) or a
// singular sub-resource right after a parameter (pods/{name}/log,
// deployments/{name}/scale); then it is the action and the literal
// before it the resource. A plural after a parameter is a nested
// collection and a resource of its own (customers/{id}/sources). A POST
// to a verb is an action too (apps/{id}/rollback).
func pathShape(method, path string) shape {
	segs := pathSegments(path)
	sh := shape{item: len(segs) > 0 && segs[len(segs)-1].param}
	i := lastLiteral(segs, len(segs)-1)
	if i < 0 {
		sh.noun = "root"
		if len(segs) > 0 && !strings.HasPrefix(segs[len(segs)-1].text, "{") {
			// /me, /self: the caller's own record.
			sh.noun = "current_user"
		}
		return sh
	}
	last := segs[i].text
	afterParam := i > 0 && segs[i-1].param
	verb := isVerbSegment(last, method == "POST" && afterParam)
	if segs[i].method {
		verb = lint.IsVerb(firstWord(mapping.SnakeCase(last)))
	}
	if verb || segs[i].method || (afterParam && !isPlural(last)) {
		if j := lastLiteral(segs, i-1); j >= 0 {
			sh.action, sh.verb = mapping.SnakeCase(last), verb
			last = segs[j].text
		}
	}
	sh.singleton = !sh.item && sh.action == "" && !isPlural(last)
	sh.noun = oa2mcpimpl.Singular(mapping.SnakeCase(last))
	if sh.noun == "" {
		sh.noun = "root"
	}
	return sh
}

// isVerbSegment reports whether a path segment is an action: one word
// lint knows as an action (login, cancel), or any verb when posted to an
// item (apps/{id}/rollback); several words starting with a verb
// (findByStatus, uploadImage), unless they are a plural snake-case noun
// phrase (report_runs, order_returns).
func isVerbSegment(seg string, postToItem bool) bool {
	words := strings.Split(mapping.SnakeCase(seg), "_")
	if len(words) == 1 {
		return lint.IsActionSegment(seg) || postToItem && lint.IsVerb(words[0])
	}
	if !lint.IsVerb(words[0]) {
		return false
	}
	camel := !strings.ContainsAny(seg, "_-") && strings.ToLower(seg) != seg
	return camel || !isPlural(seg) || prepositions[words[len(words)-2]]
}

// prepositions mark lookups in segments: findByStatus, listForUser.
var prepositions = wordSet([]string{"by", "for", "from", "in", "of", "to", "with"})

func lastLiteral(segs []segment, from int) int {
	for i := from; i >= 0; i-- {
		if !segs[i].param {
			return i
		}
	}
	return -1
}

// isPlural guesses English plurals: "pods", "entries", not "status".
func isPlural(s string) bool {
	low := strings.ToLower(s)
	return strings.HasSuffix(low, "s") && !strings.HasSuffix(low, "ss") && !strings.HasSuffix(low, "us") && len(low) > 3
}

// role is what a tool does to its resource.
type role int

const (
	// reader tools only read: they are read-only and safe to call.
	reader role = iota
	// writer tools change the resource.
	writer
	// single tools are one action of their own, such as login.
	single
)

// cluster is the operations on one resource under one tag.
type cluster struct {
	tag, noun string
	ops       []*opInfo
	cands     []*candidate
	// mentions counts the operations that take this resource as an input
	// (customer, customer_id): how central it is to the API.
	mentions int
}

// groupOperations clusters operations by tag and resource, in the order
// of their first operation.
func groupOperations(ops []*opInfo) []*cluster {
	byKey := map[string]*cluster{}
	var out []*cluster
	for _, o := range ops {
		key := mapping.SnakeCase(o.tag) + "|" + o.shape.noun
		cl := byKey[key]
		if cl == nil {
			cl = &cluster{tag: o.tag, noun: o.shape.noun}
			byKey[key] = cl
			out = append(out, cl)
		}
		cl.ops = append(cl.ops, o)
	}
	markCollections(ops)
	return out
}

// markCollections corrects the singleton guess for singular collection
// names: /dept is a collection when /dept/{deptId} exists.
func markCollections(ops []*opInfo) {
	prefixes := map[string]bool{}
	for _, o := range ops {
		if i := strings.LastIndex(o.op.Path, "/{"); i > 0 {
			prefixes[o.op.Path[:i]] = true
		}
	}
	for _, o := range ops {
		if o.shape.singleton && prefixes[strings.TrimRight(o.op.Path, "/")] {
			o.shape.singleton = false
		}
	}
}

// roleOf sorts an operation into its cluster's read tool, write tool or
// a tool of its own: reads with an action other than a lookup (login,
// export) are a task of their own, not a way to find the resource.
func roleOf(o *opInfo) role {
	if isQuery(o) {
		return reader
	}
	if !isRead(o.op.Method) {
		return writer
	}
	if o.shape.verb && !lint.IsLookupVerb(firstWord(o.shape.action)) {
		return single
	}
	return reader
}

func isRead(method string) bool {
	return method == "GET" || method == "HEAD"
}

// splitCluster makes the cluster's candidates: its read tool, its write
// tool and its single-action tools, each split past maxActions.
func splitCluster(cl *cluster) {
	var reads, writes []*opInfo
	for _, o := range cl.ops {
		switch r := roleOf(o); {
		case r == reader && o.paged && len(cl.ops) > 1:
			// A paged list is a tool of its own: action tools have no
			// per-action paging.
			cl.cands = append(cl.cands, &candidate{cluster: cl, role: reader, ops: []*opInfo{o}})
		case r == reader:
			reads = append(reads, o)
		case r == writer:
			writes = append(writes, o)
		default:
			cl.cands = append(cl.cands, &candidate{cluster: cl, role: single, ops: []*opInfo{o}})
		}
	}
	var parts []*candidate
	for _, set := range []struct {
		r   role
		ops []*opInfo
	}{{reader, reads}, {writer, writes}} {
		for i := 0; i < len(set.ops); i += maxActions {
			end := min(i+maxActions, len(set.ops))
			parts = append(parts, &candidate{cluster: cl, role: set.r, ops: set.ops[i:end]})
		}
	}
	cl.cands = append(parts, cl.cands...)
}

// scoreMentions counts, for each cluster, the operations with an input
// naming its resource. The inputs are those of each operation's default
// tool, as generator/mapping derives them.
func scoreMentions(clusters []*cluster, ops []*opInfo) {
	count := map[string]int{}
	for _, o := range ops {
		seen := map[string]bool{}
		for _, name := range ir.PropertyNames(o.def.InputSchema) {
			if n, ok := keyNoun(name); ok && !seen[n] {
				seen[n] = true
				count[n]++
			}
		}
	}
	for _, o := range ops {
		// /payments/{id}/captures takes a payment: a mention of it.
		for _, n := range ancestorNouns(o.op.Path) {
			count[n]++
		}
	}
	home := map[string]*cluster{}
	for _, cl := range clusters {
		if h := home[cl.noun]; h == nil || len(cl.ops) > len(h.ops) {
			home[cl.noun] = cl
		}
	}
	for noun, cl := range home {
		cl.mentions = count[noun]
	}
}

// ancestorNouns are the resources a path nests under: each literal
// segment followed by a parameter before the last segment
// (/payments/{id}/refunds → payment).
func ancestorNouns(path string) []string {
	segs := pathSegments(path)
	var out []string
	for i := 0; i+2 < len(segs); i++ {
		if !segs[i].param && segs[i+1].param {
			out = append(out, oa2mcpimpl.Singular(mapping.SnakeCase(segs[i].text)))
		}
	}
	return out
}

var keySuffixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`_(id|ids|uuid|uuids|key|sid|name)$`) })

// keyNoun is the resource an input names when it is a key: customer,
// customer_id and droplet_ids name one; tags, a list of values, does not.
func keyNoun(input string) (string, bool) {
	name := mapping.SnakeCase(input)
	if stem := keySuffixRE().ReplaceAllString(name, ""); stem != name {
		return oa2mcpimpl.Singular(stem), true
	}
	return name, !isPlural(name)
}
