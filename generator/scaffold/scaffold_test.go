package scaffold

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// shopSpec has two resources under two tags, reads and writes, a lookup
// action, a login action, a singleton, a deprecated operation, a shared
// operationId, a resource other operations take as input (customer), an
// operation without summary or description, a second id input next to
// the path's, and a POST that cancels (destructive by its name only).
const shopSpec = `openapi: 3.0.3
info: {title: Corner Shop API - OpenAPI 3.0, version: "1"}
tags:
  - {name: pet, description: Everything about your pets. More words here.}
paths:
  /pet:
    post:
      operationId: addPet
      tags: [pet]
      summary: Add a new pet to the store
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string, description: The pet's name such as Rex.}
      responses: {"200": {description: ok}}
  /pet/findByStatus:
    get:
      operationId: findPetsByStatus
      tags: [pet]
      summary: Finds pets by status
      parameters:
        - {name: status, in: query, schema: {type: string, enum: [available, sold]}, description: Status to filter by}
      responses: {"200": {description: ok}}
  /pet/{petId}:
    get:
      operationId: getPetById
      tags: [pet]
      summary: Find pet by ID
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer, format: int64}, description: ID of the pet}
        - {name: id, in: query, schema: {type: string}, description: A second id}
      responses: {"200": {description: ok}}
    post:
      operationId: updatePetWithForm
      tags: [pet]
      summary: Updates a pet with form data
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses: {"200": {description: ok}}
    delete:
      operationId: deletePet
      tags: [pet]
      summary: Deletes a pet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses: {"204": {description: gone}}
  /pet/{petId}/old:
    get:
      operationId: oldPet
      tags: [pet]
      deprecated: true
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses: {"200": {description: ok}}
  /store/inventory:
    get:
      operationId: getInventory
      tags: [store]
      summary: Returns pet inventories by status
      responses: {"200": {description: ok}}
  /user/login:
    get:
      operationId: loginUser
      tags: [user]
      summary: Logs user into the system
      responses: {"200": {description: ok}}
  /customers:
    get:
      operationId: dup
      responses: {"200": {description: ok}}
  /customers/{customer}:
    get:
      operationId: dup
      parameters:
        - {name: customer, in: path, required: true, schema: {type: string}}
      responses: {"200": {description: ok}}
  /charges:
    get:
      parameters:
        - {name: customer, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
  /orders/{orderId}/cancel:
    post:
      operationId: cancelOrder
      summary: Cancel an order
      parameters:
        - {name: orderId, in: path, required: true, schema: {type: integer}, description: The order number, e.g. 7.}
      responses: {"200": {description: ok}}
  /invoices:
    get:
      operationId: listInvoices
      parameters:
        - {name: customer_id, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
  /subscriptions:
    get:
      operationId: listSubscriptions
      parameters:
        - {name: customer, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
  /refunds:
    get:
      operationId: listRefunds
      parameters:
        - {name: customer, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
`

// loadSpec writes spec to a temporary file and loads it.
func loadSpec(t *testing.T, spec string) *load.Document {
	t.Helper()
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, problems := load.Load(context.Background(), path, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	return doc
}

// mustGenerate decodes and builds a draft, failing on any error.
func mustGenerate(t *testing.T, doc *load.Document, text []byte) *Result {
	t.Helper()
	srv, problems := generates(doc, text)
	if problems.HasErrors() {
		t.Fatalf("the draft does not generate:\n%s\n%s", problems.Errors(), text)
	}
	return &Result{Server: srv, Text: text}
}

// toolBlock is the YAML of the tool named name, up to the next tool.
func toolBlock(t *testing.T, text, name string) string {
	t.Helper()
	start := strings.Index(text, "  - name: "+name+"\n")
	if start < 0 {
		t.Fatalf("no tool %s in:\n%s", name, text)
	}
	rest := text[start+1:]
	if end := strings.Index(rest, "\n  - name: "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

func TestGroupsByMeaning(t *testing.T) {
	res := Build(loadSpec(t, shopSpec), Options{})
	text := string(res.Text)
	for _, want := range []string{"find_pets", "manage_pets", "get_inventory", "login_user", "find_customers", "cancel_order"} {
		toolBlock(t, text, want)
	}
	if strings.Contains(text, "name: manage_inventor") || strings.Contains(text, "name: manage_login") {
		t.Errorf("a read-only group is named manage_*:\n%s", text)
	}
	find := toolBlock(t, text, "find_pets")
	for _, op := range []string{"findPetsByStatus", "getPetById"} {
		if !strings.Contains(find, `"`+op+`"`) {
			t.Errorf("find_pets lacks %s:\n%s", op, find)
		}
	}
	if strings.Contains(find, "deletePet") || strings.Contains(find, "addPet") {
		t.Errorf("find_pets mixes writes into a read-only tool:\n%s", find)
	}
	// A POST to one pet changes it; the description says so.
	if manage := toolBlock(t, text, "manage_pets"); !strings.Contains(manage, `description: "Create, change or delete pets.`) {
		t.Errorf("manage_pets does not say what it does:\n%s", manage)
	}
	for _, tool := range res.Server.Tools {
		if strings.HasSuffix(tool.Name, "find_pets") && (!tool.ReadOnly || tool.Destructive) {
			t.Errorf("find_pets: readOnly=%v destructive=%v, want a read-only tool", tool.ReadOnly, tool.Destructive)
		}
	}
}

func TestOneDescriptionPerAction(t *testing.T) {
	text := string(Build(loadSpec(t, shopSpec), Options{}).Text)
	for _, summary := range []string{"Finds pets by status.", "Find pet by ID.", "Deletes a pet.", "Add a new pet to the store."} {
		if n := strings.Count(text, summary); n != 1 {
			t.Errorf("%q appears %d times in the draft, want once (as its action's description):\n%s", summary, n, text)
		}
	}
}

func TestServerNameAndPrefix(t *testing.T) {
	for title, want := range map[string]serverNames{
		"Swagger Petstore - OpenAPI 3.0":    {"petstore", "petstore"},
		"Redocly Museum API":                {"redocly-museum", "redocly_museum"},
		"go-admin API":                      {"go-admin", "go_admin"},
		"Extraordinarily Longwinded Things": {"extraordinarily", "extraordinarily"},
		"API v2":                            {"api", "api"},
		"Spotify Web API with fixes and improvements from sonallux": {"spotify", "spotify"},
		"Adyen Checkout API (v71)":                                  {"adyen-checkout", "adyen_checkout"},
		"The Stripe REST API":                                       {"stripe", "stripe"},
		"Box Platform API: Files":                                   {"box", "box"},
		"Music Streaming Web API for partners":                      {"music-streaming", "music_streaming"},
		"部门":                                                        {"api", "api"},
	} {
		if got := namesFor(title); got != want {
			t.Errorf("namesFor(%q) = %+v, want %+v", title, got, want)
		}
	}
	text := string(Build(loadSpec(t, shopSpec), Options{}).Text)
	for _, want := range []string{"\n  name: corner-shop\n", "\n  tool_prefix: corner_shop\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("draft lacks %q:\n%s", want, text)
		}
	}
}

func TestInputsListedFromMapping(t *testing.T) {
	text := string(Build(loadSpec(t, shopSpec), Options{}).Text)
	find := toolBlock(t, text, "find_pets")
	for _, want := range []string{
		"#   action: string: find_by_status, get (required) — which action to run",
		"#   petId: integer (int64) (required for get) — ID of the pet",
		"#   status: string: available, sold (for find_by_status) — Status to filter by",
		// Both id inputs, as the mapping built them.
		"#   id: string (for get) — A second id",
	} {
		if !strings.Contains(find, want) {
			t.Errorf("find_pets does not list %q:\n%s", want, find)
		}
	}
	if add := toolBlock(t, text, "manage_pets"); !strings.Contains(add, "#   name: string (required for create) — The pet's name such as Rex.") {
		t.Errorf("manage_pets does not list its body input:\n%s", add)
	}
	if inv := toolBlock(t, text, "get_inventory"); !strings.Contains(inv, "#   (none)") {
		t.Errorf("get_inventory does not say it has no inputs:\n%s", inv)
	}
}

func TestTitlesNameNoPaths(t *testing.T) {
	res := Build(loadSpec(t, shopSpec), Options{})
	for _, tool := range res.Server.Tools {
		if strings.Contains(tool.Title, "/") || tool.Title == "" {
			t.Errorf("tool %s has title %q", tool.Name, tool.Title)
		}
	}
	if !strings.Contains(string(res.Text), `title: "Find charges"`) {
		t.Errorf("an operation without summary is not titled by its name:\n%s", res.Text)
	}
}

func TestDraftGeneratesAndLintsClean(t *testing.T) {
	doc := loadSpec(t, shopSpec)
	res := Build(doc, Options{Spec: "shop.yaml"})
	if res.Server == nil || res.Problems.HasErrors() {
		t.Fatalf("the draft does not generate: %v\n%s", res.Problems, res.Text)
	}
	rep := lint.Check(res.Server, lint.Config{})
	if rep.Count(lint.Error) > 0 {
		t.Errorf("lint errors on the draft: %+v", rep.Findings)
	}
	for _, f := range rep.Findings {
		if f.Rule == "name-namespace" || f.Rule == "name-verb-object" || f.Rule == "description-when-to-use" {
			t.Errorf("draft tool %s: %s: %s", f.Tool, f.Rule, f.Message)
		}
	}
	text := string(res.Text)
	if strings.Contains(text, " docs/") || !strings.Contains(text, docsURL) {
		t.Errorf("the draft must point at the published docs, not at a docs/ folder the user lacks:\n%s", text)
	}
	if !strings.Contains(text, "oa2mcp lint --spec shop.yaml") {
		t.Errorf("the draft does not say how to check it:\n%s", text)
	}
}

func TestLeftOutOperations(t *testing.T) {
	doc := loadSpec(t, shopSpec)
	res := Build(doc, Options{})
	text := string(res.Text)
	if strings.Count(text, "oldPet") != 1 || !strings.Contains(text, "    - operation: \"oldPet\"") ||
		!strings.Contains(text, "1 deprecated operation(s) left out of the server") {
		t.Errorf("the deprecated operation is drafted or not excluded and noted:\n%s", text)
	}
	if served := deprecatedServed(doc, res); len(served) > 0 {
		t.Errorf("deprecated operations served: %v", served)
	}
	// Two operations share the operationId "dup": the draft names them
	// by method and path, so each action calls its own operation.
	if !strings.Contains(text, `"GET /customers/{customer}"`) || strings.Contains(text, `operation: "dup"`) {
		t.Errorf("a shared operationId is used as a reference:\n%s", text)
	}
}

// deprecatedServed lists the deprecated operations the drafted server
// still calls, through a tool or through discovery.
func deprecatedServed(doc *load.Document, res *Result) []string {
	if res.Server == nil {
		return nil
	}
	served := map[string]bool{}
	for k := range res.Server.Responses {
		served[k] = true
	}
	if disc := res.Server.Discovery; disc != nil {
		for _, d := range disc.Operations {
			if d.Tool.Op != nil {
				served[d.Tool.Op.Method+" "+d.Tool.Op.Path] = true
			}
		}
	}
	var out []string
	for _, op := range doc.Operations {
		if op.Deprecated && (served[op.Method+" "+op.Path] || served[op.Method+" "+op.RawPath]) {
			out = append(out, op.Method+" "+op.Path)
		}
	}
	return out
}

func TestCentralResourceFirst(t *testing.T) {
	text := string(Build(loadSpec(t, shopSpec), Options{}).Text)
	tools := regexp.MustCompile(`(?m)^  - name: (\w+)$`).FindAllStringSubmatch(text, -1)
	if len(tools) == 0 || tools[0][1] != "find_customers" {
		t.Errorf("the resource other operations take as input (customer) is not drafted first: %v", tools)
	}
}

func TestBudgetCommentsOutTheRest(t *testing.T) {
	doc := loadSpec(t, shopSpec)
	res := Build(doc, Options{MaxTools: 2})
	if res.Tools != 2 || res.Candidates == 0 {
		t.Fatalf("MaxTools 2: %d tools, %d candidates", res.Tools, res.Candidates)
	}
	if len(res.Server.Tools) != 2 {
		t.Errorf("the draft generates %d tools, want 2", len(res.Server.Tools))
	}
	// The operations the two tools leave are served by discovery, not lost.
	if !strings.Contains(string(res.Text), "  unused: discover\n") || res.Server.Discovery == nil {
		t.Errorf("the long tail is not served by discovery:\n%s", res.Text)
	}
	if full := Build(doc, Options{}); !strings.Contains(string(full.Text), "  unused: drop\n") {
		t.Errorf("a draft that covers every operation should drop none:\n%s", full.Text)
	}
	// Uncommenting the candidates gives a valid draft with all of them.
	uncommented := regexp.MustCompile(`(?m)^  # ((?:- |  ).*)$`).ReplaceAllString(string(res.Text), "  $1")
	all := mustGenerate(t, doc, []byte(uncommented))
	if got, want := len(all.Server.Tools), res.Tools+res.Candidates; got != want {
		t.Errorf("uncommented draft has %d tools, want %d:\n%s", got, want, uncommented)
	}
	// Every tool fits a quarter of 1000 tokens, not all of them 1000.
	small := Build(doc, Options{MaxListTokens: 1000})
	if got := lint.ListTokens(small.Server); got > 1000 || small.Candidates == 0 {
		t.Errorf("MaxListTokens 1000: the draft lists about %d tokens, %d candidates left out", got, small.Candidates)
	}
}

func TestBrokenToolSetAside(t *testing.T) {
	a, b := &candidate{name: "a"}, &candidate{name: "b"}
	d := &draft{cands: []*candidate{a, b}}
	spans := map[*candidate][2]int{a: {10, 20}, b: {21, 30}}
	var problems diag.List
	problems.Errorf(diag.Position{File: draftFile, Line: 25}, "fix", "bad")
	if !d.setAside(problems, spans) || b.broken != "bad" || a.broken != "" {
		t.Errorf("setAside: a=%q b=%q", a.broken, b.broken)
	}
	var outside diag.List
	a.broken, b.broken = "", ""
	outside.Errorf(diag.Position{File: draftFile, Line: 12}, "fix", "tool problem")
	outside.Errorf(diag.Position{File: draftFile, Line: 3}, "fix", "server problem")
	if d.setAside(outside, spans) {
		t.Error("an error outside every tool did not stop the set-aside: setting tools aside cannot fix it")
	}
}

func TestPathShapes(t *testing.T) {
	for in, want := range map[string]shape{
		"GET /pet/findByStatus":                       {noun: "pet", action: "find_by_status", verb: true},
		"GET /store/order/{orderId}":                  {noun: "order", item: true},
		"GET /store/inventory":                        {noun: "inventory", singleton: true},
		"GET /user/login":                             {noun: "user", action: "login", verb: true},
		"GET /api/v1/namespaces/{ns}/pods/{name}/log": {noun: "pod", action: "log"},
		"POST /v1/customers/{customer}/sources":       {noun: "source"},
		"GET /v1/reporting/report_runs":               {noun: "report_run"},
		"POST /v2/apps/{app_id}/rollback":             {noun: "app", action: "rollback", verb: true},
		"POST /conversations.archive":                 {noun: "conversation", action: "archive", verb: true},
		"GET /apis/authentication.k8s.io/v1/":         {noun: "authentication_k8s_io", singleton: true},
		"GET /2010-04-01/Accounts/{Sid}/Calls.json":   {noun: "call"},
		"GET /":           {noun: "root"},
		"GET /members/me": {noun: "member", item: true},
	} {
		method, path, _ := strings.Cut(in, " ")
		if got := pathShape(method, path); got != want {
			t.Errorf("pathShape(%s) = %+v, want %+v", in, got, want)
		}
	}
}

// TestCorpusDraftsGenerate drafts real specs: each draft must generate,
// lint without errors and stay within the default budget.
func TestCorpusDraftsGenerate(t *testing.T) {
	dir := testenv.CorpusDir(t)
	for _, name := range []string{"swagger-petstore-3.0.yaml", "redocly-museum-3.1.yaml", "go-admin-2.0.json", "stripe-2018-3.0.yaml"} {
		t.Run(name, func(t *testing.T) {
			doc, problems := load.Load(context.Background(), filepath.Join(dir, name), load.Options{})
			if problems.HasErrors() {
				t.Fatal(problems.Errors())
			}
			res := Build(doc, Options{})
			if res.Server == nil {
				t.Fatalf("does not generate: %v", res.Problems.Errors())
			}
			rep := lint.Check(res.Server, lint.Config{})
			if rep.Count(lint.Error) > 0 || rep.ListTokens > lint.Defaults.MaxListTokens || rep.Tools > lint.Defaults.MaxTools {
				t.Errorf("%d tools, ≈%d tokens, %d lint errors", rep.Tools, rep.ListTokens, rep.Count(lint.Error))
			}
			ov, _ := overrides.Decode("x.yaml", res.Text)
			if _, p := mapping.Build(doc, mapping.Config{Overrides: ov}); p.HasErrors() {
				t.Error(p.Errors())
			}
		})
	}
}

// TestIdentityInputsBound: an input that is the caller's own identity
// (aftersales' X-Customer-Id header) is bound from the caller's token in
// the draft, so the drafted server never lets the model fill it.
func TestIdentityInputsBound(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "examples", "aftersales", "openapi.yaml")
	doc, problems := load.Load(context.Background(), path, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	res := Build(doc, Options{})
	if !strings.Contains(string(res.Text), `"X-Customer-Id": {identity: sub}`) {
		t.Fatalf("X-Customer-Id is not bound to the caller:\n%s", res.Text)
	}
	if res.Server == nil {
		t.Fatalf("the draft does not generate: %v", res.Problems.Errors())
	}
	for _, tool := range res.Server.Tools {
		if strings.Contains(tool.InputSchema, "X-Customer-Id") {
			t.Errorf("%s still takes X-Customer-Id from the model", tool.Name)
		}
	}
}

// TestActionsNamedByTask: an operationId that says more than its method
// names the action and the tool's purpose (borrowBook is "borrow", not
// "create").
func TestActionsNamedByTask(t *testing.T) {
	doc := loadSpec(t, `openapi: 3.0.3
info: {title: Library, version: "1"}
paths:
  /loans:
    post:
      operationId: borrowBook
      summary: Borrow a book
      responses: {"201": {description: ok}}
  /loans/{loanId}:
    delete:
      operationId: returnLoan
      summary: Return a borrowed book
      parameters: [{name: loanId, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: ok}}
  /loans/{loanId}/renew:
    post:
      operationId: renewLoan
      summary: Renew a loan
      parameters: [{name: loanId, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
`)
	text := string(Build(doc, Options{}).Text)
	for _, want := range []string{"      borrow:\n", "      return:\n", "      renew:\n", "Borrow, return or renew loans."} {
		if !strings.Contains(text, want) {
			t.Errorf("draft lacks %q:\n%s", want, text)
		}
	}
}

// pagingSpec has one list endpoint per paging style, each on a resource of
// its own so each is a one-operation tool.
const pagingSpec = `openapi: 3.0.3
info: {title: Paging, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /colours:
    get:
      operationId: listColours
      summary: List colours
      responses:
        "200":
          description: Every colour at once.
          content: {application/json: {schema: {type: array, items: {type: object, properties: {name: {type: string}}}}}}
  /shelves:
    get:
      operationId: listShelves
      summary: List shelves
      parameters:
        - {name: offset, in: query, schema: {type: integer, minimum: 0}}
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100}}
      responses:
        "200":
          description: A page of shelves.
          content:
            application/json:
              schema:
                type: object
                properties:
                  items: {type: array, items: {type: object, properties: {id: {type: string}}}}
                  total: {type: integer}
  /charges:
    get:
      operationId: listCharges
      summary: List charges
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
        - {name: starting_after, in: query, schema: {type: string}}
      responses:
        "200":
          description: A page of charges, by cursor.
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {type: object, properties: {id: {type: string}}}}
                  has_more: {type: boolean}
  /events:
    get:
      operationId: listEvents
      summary: List events
      parameters:
        - {name: cursor, in: query, schema: {type: string}}
      responses:
        "200":
          description: A page of events, by cursor only.
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {type: object, properties: {id: {type: string}}}}
                  next_cursor: {type: string}
  /stats:
    get:
      operationId: listStats
      summary: Get the statistics
      responses:
        "200":
          description: A record that holds one array, not a list.
          content:
            application/json:
              schema:
                type: object
                properties:
                  updated: {type: string}
                  samples: {type: array, items: {type: number}}
  /me:
    get:
      operationId: getMe
      summary: Get the signed-in user
      responses:
        "200":
          description: The user, with their roles.
          content:
            application/json:
              schema:
                type: object
                properties:
                  name: {type: string}
                  roles: {type: array, items: {type: string}}
`

// TestListToolsDraftedWithPaging: a list the upstream answers whole is
// paged by the server (an offset input of the tool's own); one the
// upstream pages by offset and size gets its size bound to the page; a
// cursor-paged list and a record holding an array are drafted without
// paging. The draft generates, every tool proven, paging cases included.
func TestListToolsDraftedWithPaging(t *testing.T) {
	doc := loadSpec(t, pagingSpec)
	res := Build(doc, Options{})
	text := string(res.Text)
	for _, want := range []string{
		`list: {path: "", limit: 20, page_input: "offset", page_kind: offset}`,
		`offset: {type: integer, minimum: 0,`,
		`list: {path: "items", limit: 20, page_input: "offset", page_kind: offset`,
		`"limit": {value: 20}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks %s:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "list: {path"); n != 2 {
		t.Errorf("%d tools drafted with paging, want 2 (not the cursor-paged charges and events, not the statistics' samples or the user's roles):\n%s", n, text)
	}
	ov, problems := overrides.Decode("paging.yaml", res.Text)
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	gen, more := generator.Generate(doc, generator.Config{Name: "paging", Overrides: ov})
	if more.HasErrors() {
		t.Fatalf("the draft does not generate:\n%s", more.Errors())
	}
	paged := 0
	for _, c := range gen.Server.CallCases {
		if c.WantPage != nil {
			paged++
		}
	}
	if paged != 4 {
		t.Errorf("%d paging cases, want a first and a last page for each of the 2 paged tools", paged)
	}
}
