package lint

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

func tool(name, method, path, desc, schema string) ir.Tool {
	var t ir.Tool
	t.Name, t.Title, t.Description, t.InputSchema = name, "T", desc, schema
	t.Op = &ir.Operation{Method: method, Path: path}
	switch method {
	case "GET":
		t.ReadOnly = true
	case "DELETE":
		t.Destructive = true
	}
	return t
}

func rulesOf(r *Report, toolName string) map[string]bool {
	out := map[string]bool{}
	for _, f := range r.Findings {
		if f.Tool == toolName {
			out[f.Rule] = true
		}
	}
	return out
}

const good = "Look up a pet by its id, e.g. 42. Use it when the user asks about one pet they know the id of. " +
	"To search by status use shop_find_pets instead. Returns name and status only, not the order history."

func TestGoodToolIsClean(t *testing.T) {
	srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "shop"}, Tools: []ir.Tool{
		tool("shop_get_pet", "GET", "/pets/{id}", good, `{"type":"object","properties":{"id":{"type":"integer","description":"Pet id, e.g. 42."}},"required":["id"]}`),
		tool("shop_find_pets", "GET", "/pets", "Find pets by status. Use it when the user asks which pets are available. For one known pet use shop_get_pet instead. Returns ids and names only, not photos.",
			`{"type":"object","properties":{"status":{"type":"string","enum":["available","sold"],"description":"available: can be bought; sold: gone."}}}`),
	}}
	r := Check(srv, Config{})
	if len(r.Findings) != 0 {
		b, _ := json.MarshalIndent(r.Findings, "", "  ")
		t.Errorf("findings on good tools:\n%s", b)
	}
}

func TestBadTool(t *testing.T) {
	bad := tool("Pets", "POST", "/pets", "Calls the API endpoint POST /api/v1/pets.",
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","description":"B."},"c":{"type":"string","enum":["x","y"],"description":"C."},"d":{"type":"string","description":"D."},"e":{"type":"string","description":"E."}},"required":["a","b","c","d","e"]}`)
	del := tool("remove_pet", "POST", "/pets/{id}/remove", "Remove a pet.", `{"type":"object"}`)
	del.Destructive = false
	srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "shop"}, Tools: []ir.Tool{bad, del, tool("x y", "GET", "/x", "", `{}`)}}
	r := Check(srv, Config{})
	got := rulesOf(r, "Pets")
	for _, want := range []string{"description-sentences", "description-endpoint-speak", "description-when-to-use", "param-described", "enum-explained", "required-params", "name-verb-object"} {
		if !got[want] {
			t.Errorf("Pets: missing %s; got %v", want, got)
		}
	}
	if !rulesOf(r, "remove_pet")["destructive-confirmation"] {
		t.Error("remove_pet: want destructive-confirmation")
	}
	if !rulesOf(r, "x y")["name-format"] || !rulesOf(r, "x y")["description-missing"] {
		t.Errorf("x y: %v", rulesOf(r, "x y"))
	}
	if r.Count(Error) == 0 {
		t.Error("want errors")
	}
}

func TestThresholds(t *testing.T) {
	srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "big"}}
	for i := 0; i < 45; i++ {
		srv.Tools = append(srv.Tools, tool("big_get_"+strings.Repeat("x", i+1), "GET", "/x", good, `{"type":"object"}`))
	}
	r := Check(srv, Config{})
	var sev Severity
	for _, f := range r.Findings {
		if f.Rule == "tool-count" {
			sev = f.Severity
		}
	}
	if sev != Warning {
		t.Errorf("tool-count severity %q, want warning", sev)
	}
	if r.ListTokens <= 0 {
		t.Error("no token estimate")
	}
}

func TestSentencesAndResources(t *testing.T) {
	for s, want := range map[string]int{"One. Two, e.g. 3.5 units. Three": 3, "": 0, "No end": 1} {
		if got := countSentences(s); got != want {
			t.Errorf("countSentences(%q) = %d, want %d", s, got, want)
		}
	}
	for p, want := range map[string]string{"/pet/findByStatus": "pet", "/store/order/{orderId}": "order", "/store/order": "order",
		"/user/login": "user:login", "/api/v1/namespaces/{ns}/pods": "pod", "/categories": "category"} {
		if got := resourceOf(p); got != want {
			t.Errorf("resourceOf(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestCallerIdentity: an input carrying the caller's own identity is a
// finding; an ordinary customer filter is not.
func TestCallerIdentity(t *testing.T) {
	for name, desc := range map[string]string{
		"X-Member-Id":   "The member, e.g. M-1.",
		"X-User-ID":     "User, e.g. u1.",
		"X-Acting-User": "Who acts, e.g. u1.",
		"member":        "Set from the signed-in user, e.g. M-1.",
		"owner":         "The authenticated user's id, e.g. u1.",
		"X-Patient-Id":  "Patient, e.g. P-1.",
		"member_no":     "The acting member.",
		"who":           "Number of the signed-in customer, e.g. 7.",
	} {
		if !CallerIdentity(name, desc) {
			t.Errorf("CallerIdentity(%q, %q) = false", name, desc)
		}
	}
	for name, desc := range map[string]string{
		"customer_id":    "Only charges of this customer, e.g. cus_1.",
		"X-Request-Id":   "Request id, e.g. r1.",
		"Stripe-Account": "The connected account, e.g. acct_1.",
		"user":           "The user to invite, e.g. ann@example.com.",
		"session":        "Logs out current logged in user session, e.g. s1.",
	} {
		if CallerIdentity(name, desc) {
			t.Errorf("CallerIdentity(%q, %q) = true", name, desc)
		}
	}
	srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "lib"}, Tools: []ir.Tool{
		tool("lib_list_loans", "GET", "/loans", good, `{"type":"object","properties":{"X-Member-Id":{"type":"string","description":"The member, e.g. M-1."}}}`),
		tool("lib_session", "GET", "/session", good, `{"type":"object","properties":{"action":{"type":"string","enum":["login","logout"],"description":"The logged-in user's next step: login or logout."}}}`),
	}}
	rep := Check(srv, Config{})
	if !rulesOf(rep, "lib_list_loans")["caller-identity"] {
		t.Error("lib_list_loans: want caller-identity")
	}
	if rulesOf(rep, "lib_session")["caller-identity"] {
		t.Error("lib_session: an enum input is never an identity")
	}
}

// TestDiscoveryToolsCounted: in discovery mode the three tools the
// runtime adds are part of tools/list, so the size and count include them.
func TestDiscoveryToolsCounted(t *testing.T) {
	srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "shop"}, Tools: []ir.Tool{
		tool("shop_get_pet", "GET", "/pets/{id}", good, `{"type":"object","properties":{"id":{"type":"integer","description":"Pet id, e.g. 42."}},"required":["id"]}`),
	}}
	plain := Check(srv, Config{})
	srv.Discovery = &runtime.Discovery{Prefix: "shop_"}
	disc := Check(srv, Config{})
	if disc.Tools != plain.Tools+3 || disc.ListTokens <= plain.ListTokens+300 {
		t.Errorf("with discovery: %d tools, %d tokens; without: %d tools, %d tokens", disc.Tools, disc.ListTokens, plain.Tools, plain.ListTokens)
	}
}

// TestEndpointSpeakGuards: the word guards never hide a match of the
// regexps they skip.
func TestEndpointSpeakGuards(t *testing.T) {
	for _, d := range []string{
		"Calls the API.", "This endpoint lists pets.", "Use GET on it.", "See https://example.com/x.", "Hits the pets endpoint.",
		"It wraps an operation.", "Sends an HTTP request.", "Makes an API call.", "Reads /pets/{id} and /stores/a/b.",
		"Lists pets by status.", "Invokes the REST endpoint.", "CALLS THE API", "uſe ſ", "Kelvin K api", "posts a GETTER",
		"and/or input/output", "A REST endpoint.", "wraps the route", "hit this API", "Sends an API request.", "Makes an HTTP call.",
	} {
		if got, want := endpointSpeak(d), referenceEndpointSpeak(d); want != "" && got != want {
			t.Errorf("endpointSpeak(%q) = %q, want %q", d, got, want)
		}
		for _, g := range []struct {
			re    *regexp.Regexp
			fold  bool
			words []string
		}{{urlRE(), false, []string{"http"}}, {endpointRE(), true, endpointWords}, {httpVerbRE(), false, []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}}} {
			if g.re.MatchString(d) && cannotMatch(d, g.fold, g.words) {
				t.Errorf("%q matches %s but the guard skips it", d, g.re)
			}
		}
	}
}

// TestCannotMatchNonASCII: (?i) folds some non-ASCII letters onto ASCII
// ones (ſ onto s), so a word guard answers "may match" for such text.
func TestCannotMatchNonASCII(t *testing.T) {
	if !regexp.MustCompile(`(?i)use`).MatchString("uſe it") {
		t.Fatal("(?i) no longer folds ſ")
	}
	if cannotMatch("uſe it", true, []string{"use"}) {
		t.Error("cannotMatch skips a text (?i) matches")
	}
	if !cannotMatch("plain text", true, []string{"use"}) {
		t.Error("cannotMatch runs the regexp on a text without the word")
	}
}

// TestRepeatedDescriptions: findings do not depend on whether a text was
// checked before in the same run (the regexp results are memoised).
func TestRepeatedDescriptions(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":"string","description":"The name."},"b":{"type":"string","description":"The name, e.g. Rex."},` +
		`"c":{"type":"string","description":"The name."},"d":{"type":"string","description":"The name, e.g. Rex."}}}`
	srv := &ir.Server{}
	for _, n := range []string{"one", "two"} {
		srv.Tools = append(srv.Tools, tool(n, "GET", "/things/"+n, "Lists things.", schema))
	}
	got := map[string]bool{}
	for _, f := range Check(srv, Config{}).Findings {
		if f.Rule == "param-described" {
			got[f.Tool+"."+f.Param] = true
		}
	}
	for _, want := range []string{"one.a", "one.c", "two.a", "two.c"} {
		if !got[want] {
			t.Errorf("no param-described finding for %s (got %v)", want, got)
		}
	}
	for _, not := range []string{"one.b", "one.d", "two.b", "two.d"} {
		if got[not] {
			t.Errorf("param-described finding for %s, whose description has an example", not)
		}
	}
}

// TestInputFindingsNameTheInput: a finding about an input says which
// input, so that one about an input called "description" cannot be read
// as being about the tool's description.
func TestInputFindingsNameTheInput(t *testing.T) {
	srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "shop"}, Tools: []ir.Tool{
		tool("shop_update_pet", "PATCH", "/pets/{id}", good,
			`{"type":"object","properties":{"description":{"type":"string","description":"The text."},"kind":{"type":"string","enum":["a","b"]},"note":{"type":"string"}}}`),
	}}
	want := map[string]bool{
		`the description of input "description" gives neither a format nor an example value`: false,
		`input "note" has no description`:                                      false,
		`the values a, b of input "kind" are not explained in its description`: false,
	}
	for _, f := range Check(srv, Config{}).Findings {
		if f.Param == "" {
			continue
		}
		if _, ok := want[f.Message]; ok {
			want[f.Message] = true
		} else if !strings.Contains(f.Message, strconv.Quote(f.Param)) {
			t.Errorf("finding about input %s does not name it: %s", f.Param, f.Message)
		}
	}
	for msg, seen := range want {
		if !seen {
			t.Errorf("no finding %q", msg)
		}
	}
}
