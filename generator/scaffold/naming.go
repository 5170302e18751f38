package scaffold

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// nameCandidates splits every cluster into candidates and names them
// verb-object, unique in the draft and at most maxLen characters long.
// Names that two clusters want are told apart by their tags.
func nameCandidates(clusters []*cluster, maxLen int) []*candidate {
	var all []*candidate
	wanted := map[string]map[*cluster]bool{}
	for _, cl := range clusters {
		splitCluster(cl)
		for _, c := range cl.cands {
			noun := cl.noun
			if noun == "root" {
				noun = rootNoun(c.ops[0])
			}
			c.name = toolName(c, noun)
			if wanted[c.name] == nil {
				wanted[c.name] = map[*cluster]bool{}
			}
			wanted[c.name][cl] = true
			nameActions(c)
			all = append(all, c)
		}
	}
	for _, c := range all {
		if len(wanted[c.name]) > 1 && c.cluster.tag != "" {
			c.name = toolName(c, tagNoun(c.cluster))
		}
	}
	uniqueNames(all, maxLen)
	return all
}

// toolName names a candidate after its role and resource: find_pets or
// get_order for reads, manage_pets for several writes, the action for
// one operation (create_order, capture_charge, login_user).
func toolName(c *candidate, noun string) string {
	if len(c.ops) == 1 && c.ops[0].shape.action == "" && !isQuery(c.ops[0]) {
		if name := idName(c.ops[0]); name != "" {
			return name
		}
	}
	if len(c.ops) == 1 && (c.role != reader || c.ops[0].shape.action != "") {
		return oneOpName(c.ops[0], noun)
	}
	switch {
	case c.role == writer:
		return "manage_" + plural(noun)
	case anyCollection(c.ops):
		return "find_" + plural(noun)
	}
	return "get_" + noun
}

// oneOpName names a tool of one operation: its action's verb, the
// resource, the action's other words (upload_pet_image,
// find_pets_by_status; a bare list or search is find_pets), or for a
// plain or sub-resource operation the method's verb (delete_pet,
// get_pod_log, replace_deployment_scale).
func oneOpName(o *opInfo, noun string) string {
	act := o.shape.action
	w := firstWord(act)
	rest := strings.TrimPrefix(strings.TrimPrefix(act, w), "_")
	switch {
	case o.shape.verb && lint.IsLookupVerb(w) && rest == "" && w != "get":
		return join("find", plural(noun))
	case o.shape.verb && lint.IsLookupVerb(w) && w != "get":
		return join(w, plural(noun), rest)
	case o.shape.verb && lint.IsVerb(w):
		return join(w, noun, rest)
	case act != "":
		return join(methodVerb(o.op.Method, true), noun, act)
	}
	switch verb := methodVerb(o.op.Method, o.shape.item || o.shape.singleton && isRead(o.op.Method)); verb {
	case "list":
		return join("find", plural(noun))
	case "delete_all":
		return join("delete", plural(noun))
	default:
		return join(verb, noun)
	}
}

// fillerWords say nothing in a tool name made from an operationId:
// "start-a-users-playback" is start_playback.
var fillerWords = wordSet([]string{"a", "an", "the", "user", "users", "s", "my", "current", "currently", "me", "for", "of", "and"})

// idName names a tool of one operation after its operationId when that
// starts with a task verb the path does not show ("start-a-users-playback"
// on PUT /me/player/play is start_playback, not replace_play), its filler
// words dropped; "" when the operationId starts with a generic verb or
// none.
func idName(o *opInfo) string {
	v := idVerb(o)
	if v == "" {
		return ""
	}
	var out []string
	for _, w := range strings.Split(mapping.SnakeCase(o.op.ID), "_") {
		if w != "" && !fillerWords[w] {
			out = append(out, w)
		}
	}
	switch {
	case len(out) >= 2:
	case oa2mcpimpl.Singular(o.shape.noun) == oa2mcpimpl.Singular(v):
		out = append(out, "items") // "search" on /search looks everything up
	default:
		out = append(out, o.shape.noun)
	}
	return mapping.ClipName(join(out...), 40)
}

// isQuery reports an operation that only reads although its method is
// POST: a search or query whose operationId or last path segment says so
// (POST /payments/search, queryOrders), the request body carrying the
// criteria.
func isQuery(o *opInfo) bool {
	if o.op.Method != "POST" && o.op.Method != "QUERY" {
		return false
	}
	if o.op.Method == "QUERY" {
		return true
	}
	if w, _, _ := strings.Cut(mapping.SnakeCase(o.op.ID), "_"); lint.IsLookupVerb(w) {
		return true
	}
	if w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(o.op.Summary)), " "); summaryLookups[w] {
		return true // "Get a list of available payment methods"
	}
	segs := pathSegments(o.op.Path)
	if i := lastLiteral(segs, len(segs)-1); i >= 0 && i == len(segs)-1 {
		return queryWords[strings.ToLower(segs[i].text)]
	}
	return false
}

// summaryLookups start the summary of a POST that only reads.
var summaryLookups = wordSet([]string{"get", "list", "search", "find", "query", "lookup", "retrieve", "fetch", "show"})

// queryWords are last path segments of a POST that looks things up.
var queryWords = wordSet([]string{"search", "query", "lookup", "find", "filter"})

// anyCollection reports whether any operation reads a collection or
// looks resources up another way (findByStatus).
func anyCollection(ops []*opInfo) bool {
	for _, o := range ops {
		if (!o.shape.item && !o.shape.singleton) || lint.IsLookupVerb(firstWord(o.shape.action)) {
			return true
		}
	}
	return false
}

// methodVerb is what an HTTP method does to a resource (item) or a
// collection.
func methodVerb(method string, item bool) string {
	switch method {
	case "GET", "HEAD":
		if item {
			return "get"
		}
		return "list"
	case "POST":
		if item {
			// A POST to one resource changes it.
			return "update"
		}
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
	return strings.ToLower(method)
}

// tagNoun is the resource named with its tag, for names two clusters
// want: the tag alone when it already names the resource ("Droplet
// Actions" for actions), else tag and resource.
func tagNoun(cl *cluster) string {
	t := withoutVersions(mapping.SnakeCase(cl.tag))
	if strings.Contains(t, cl.noun) {
		return oa2mcpimpl.Singular(t)
	}
	return join(t, cl.noun)
}

// withoutVersions drops the version words of a snake name
// ("admissionregistration_v1" is admissionregistration).
func withoutVersions(name string) string {
	var out []string
	for _, w := range strings.Split(name, "_") {
		if !mapping.IsVersionWord(w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, "_")
}

// rootNoun names the resource of a path with no literal segment
// (/api/v1/, a group's discovery document) from its operationId, the
// verb and versions dropped (getCoreV1APIResources: core_api_resources);
// "api" when that leaves nothing.
func rootNoun(o *opInfo) string {
	words := strings.Split(withoutVersions(mapping.SnakeCase(o.op.ID)), "_")
	if len(words) > 0 && lint.IsVerb(words[0]) {
		words = words[1:]
	}
	if n := mapping.ClipName(join(words...), 30); n != "" {
		return n
	}
	return "api"
}

// uniqueNames shortens names to maxLen and numbers the ones that are
// still taken (find_pods_2).
func uniqueNames(cands []*candidate, maxLen int) {
	seen := map[string]bool{}
	for _, c := range cands {
		base := mapping.ClipName(c.name, maxLen-3)
		name := base
		for n := 2; seen[name]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		seen[name] = true
		c.name = name
	}
}

// nameActions names the actions of a tool of several operations: the
// method's verb or the path's action (get, list, create, find_by_status,
// get_status); names two operations share get the words of their
// operationIds the others lack (list_namespaced, list_for_all_namespaces).
func nameActions(c *candidate) {
	if len(c.ops) < 2 {
		return
	}
	base := make([]string, len(c.ops))
	count := map[string]int{}
	for i, o := range c.ops {
		base[i] = actionName(o)
		count[base[i]]++
	}
	c.actions = make([]string, len(c.ops))
	for i, o := range c.ops {
		c.actions[i] = base[i]
		if count[base[i]] > 1 {
			c.actions[i] = join(base[i], distinctWords(o, c.ops, base, base[i]))
		}
	}
	uniqueActions(c.actions)
}

// actionName is an operation's action within its tool.
func actionName(o *opInfo) string {
	act := o.shape.action
	if act == "" {
		if v := idVerb(o); v != "" {
			return v
		}
		return methodVerb(o.op.Method, o.shape.item || o.shape.singleton && isRead(o.op.Method))
	}
	if o.shape.verb {
		return act
	}
	return join(methodVerb(o.op.Method, true), act)
}

// genericVerbs say no more than the HTTP method does.
var genericVerbs = wordSet([]string{"get", "list", "find", "fetch", "retrieve", "read", "show", "create", "add", "post", "new",
	"update", "edit", "modify", "change", "put", "patch", "set", "replace", "delete", "remove", "destroy"})

// idVerb is the task verb an operationId starts with when it says more
// than the method: borrowBook is "borrow", not "create"; returnLoan is
// "return", not "delete".
func idVerb(o *opInfo) string {
	if o.op.ID == "" {
		return ""
	}
	w, _, _ := strings.Cut(mapping.SnakeCase(o.op.ID), "_")
	if !lint.IsVerb(w) || genericVerbs[w] {
		return ""
	}
	return w
}

// distinctWords are the words of o's operationId that the other
// operations sharing its action name lack.
func distinctWords(o *opInfo, ops []*opInfo, base []string, name string) string {
	common := map[string]int{}
	n := 0
	for i, other := range ops {
		if base[i] != name {
			continue
		}
		n++
		for w := range wordSet(idWords(other)) {
			common[w]++
		}
	}
	var out []string
	for _, w := range idWords(o) {
		if common[w] < n && !strings.Contains("_"+name+"_", "_"+w+"_") {
			out = append(out, w)
		}
	}
	return strings.Join(out, "_")
}

// idWords are the words of an operation's reference, without the
// resource's own words.
func idWords(o *opInfo) []string {
	var out []string
	for _, w := range strings.Split(mapping.SnakeCase(o.ref), "_") {
		if w != "" && w != o.shape.noun && w != plural(o.shape.noun) {
			out = append(out, w)
		}
	}
	return out
}

// uniqueActions makes action names valid identifiers (a letter first, at
// most 40 characters) and numbers the duplicates.
func uniqueActions(names []string) {
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" || !unicode.IsLetter(rune(n[0])) {
			n = "do_" + n
		}
		base := mapping.ClipName(n, 40)
		n = base
		for k := 2; seen[n]; k++ {
			n = fmt.Sprintf("%s_%d", base, k)
		}
		seen[n] = true
		names[i] = n
	}
}

// join joins non-empty parts with "_".
func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.Trim(p, "_"); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "_")
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, "_")
	return w
}

func wordSet(words []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}

// plural is the English plural of a snake noun's last word.
func plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}
