package load

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// loadOK loads a spec and fails the test on any error.
func loadOK(t testing.TB, path string) (*Document, diag.List) {
	t.Helper()
	doc, probs := Load(context.Background(), path, Options{})
	if probs.HasErrors() {
		t.Fatalf("unexpected errors:\n%s", probs.Errors().Error())
	}
	return doc, probs
}

func corpus(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(testenv.CorpusDir(t), rel)
}

func findOp(t *testing.T, d *Document, method, rawPath string) *Operation {
	t.Helper()
	for _, o := range d.Operations {
		if o.Method == method && o.RawPath == rawPath {
			return o
		}
	}
	t.Fatalf("operation %s %s not found", method, rawPath)
	return nil
}

func findParam(o *Operation, name, in string) *Parameter {
	for _, p := range o.Parameters {
		if p.Name == name && p.In == in {
			return p
		}
	}
	return nil
}

func TestSlackTupleItems(t *testing.T) {
	d, probs := loadOK(t, corpus(t, "slack-web-2.0.json"))
	// Each tuple is a repair, reported where it is written.
	w := probs.Warnings()
	if len(w) != 28 || posText(w[0].Pos) != "slack-web-2.0.json:256:21" || !strings.Contains(w[0].Message, "tuple form") {
		t.Errorf("%d warnings, first %v", len(w), w[0])
	}
	conv, ok := d.Schemas["objs_conversation"]
	if !ok {
		t.Fatal("objs_conversation not reached")
	}
	if conv.Items == nil {
		t.Fatalf("tuple items lost: %+v", conv)
	}
	// "latest" is [objs_message, {type: null}]: one member, nullable.
	l := d.Schemas["objs_channel"].Properties["latest"].Items
	if l == nil || len(l.AnyOf) != 1 || l.AnyOf[0].Ref != "objs_message" || !l.Nullable {
		t.Errorf("latest.items = %+v", l)
	}
}

func TestIDRefs(t *testing.T) {
	d, _ := loadOK(t, corpus(t, "swagger-petstore-3.1.yaml"))
	pet := d.Schemas["Pet"]
	if pet == nil {
		t.Fatal("Pet not reached")
	}
	got := pet.Properties["petDetailsId"]
	if got == nil || got.Ref == "" {
		t.Fatalf("petDetailsId = %+v, want a ref", got)
	}
	if target := d.Schemas[got.Ref]; target == nil || target.Type != "integer" || target.Format != "int64" {
		t.Errorf("petDetailsId target = %+v, want the integer id of PetDetails", target)
	}
	if c := d.Schemas["Pet"].Properties["availableInstances"]; c.ExclusiveMaximum == nil || *c.ExclusiveMaximum != 10 {
		t.Errorf("3.1 exclusiveMaximum lost: %+v", c)
	}
}

func TestDigitalOceanOperationRefs(t *testing.T) {
	d, probs := loadOK(t, corpus(t, "digitalocean-3.0/DigitalOcean-public.v2.yaml"))
	// Two tag descriptions and six properties objects are $refs; each
	// repair is a warning at the key.
	var got []string
	for _, p := range probs.Warnings() {
		got = append(got, posText(p.Pos)+" "+p.Message[:strings.Index(p.Message, " is a $ref")])
	}
	want := []string{
		`DigitalOcean-public.v2.yaml:24:5 "description"`, `DigitalOcean-public.v2.yaml:632:5 "description"`,
		`loadBalancers_add_droplets.yml:29:9 "properties"`, `loadBalancers_remove_droplets.yml:26:9 "properties"`,
		`load_balancer.yml:17:3 "properties"`, `load_balancer.yml:21:3 "properties"`,
		`load_balancer_create.yml:5:7 "properties"`, `load_balancer_create.yml:22:7 "properties"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	if w := probs.Warnings()[0].String(); !strings.HasSuffix(w, `:24:5: warning: "description" is a $ref to description.yml#/introduction; OpenAPI wants text here; replaced by the text found there; write the text inline`) {
		t.Errorf("first warning = %s", w)
	}
	lb := d.Schemas["load_balancer"]
	if lb == nil || len(lb.AllOf) != 4 || lb.AllOf[2].Properties["droplet_ids"] == nil || lb.AllOf[3].Properties["tag"] == nil {
		t.Errorf("load_balancer properties $ref not expanded: %+v", lb)
	}
	o := findOp(t, d, "GET", "/v2/1-clicks")
	if o.ID != "oneClicks_list" || len(o.Responses) == 0 || findParam(o, "type", "query") == nil {
		t.Fatalf("1-clicks operation not resolved: %+v", o)
	}
	wantFile := filepath.Join(testenv.CorpusDir(t), "digitalocean-3.0/resources/1-clicks/oneClicks_list.yml")
	if o.Pos.File != wantFile || o.Pos.Line != 1 {
		t.Errorf("Pos = %v, want %s:1", o.Pos, wantFile)
	}
	if desc := d.Tags["Public APIs Introduction"]; !strings.Contains(desc, "DigitalOcean API") {
		t.Errorf("tag description from $ref not read: %q", desc)
	}
	for _, o := range d.Operations {
		if o.ID == "" {
			t.Errorf("%s %s: operation $ref not resolved", o.Method, o.Path)
		}
	}
}

func TestSwaggerSeparateArrayParam(t *testing.T) {
	path := corpus(t, "oai-petstore-separate-2.0/spec/swagger.yaml")
	d, _ := loadOK(t, path)
	o := findOp(t, d, "GET", "/pets")
	p := findParam(o, "tags", "query")
	if p == nil || p.Schema == nil || p.Schema.Type != "array" || p.Schema.Items == nil || p.Schema.Items.Type != "string" {
		t.Fatalf("tags param = %+v", p)
	}
	if p.Style != "form" || p.Explode {
		t.Errorf("csv array param style = %s explode = %v, want form false", p.Style, p.Explode)
	}
	if o.Pos.File != path || o.Pos.Line != 24 {
		t.Errorf("op pos = %v", o.Pos)
	}
	if len(d.Servers) != 1 || d.Servers[0] != "http://petstore.swagger.io/api" {
		t.Errorf("servers = %v", d.Servers)
	}
}

func TestOpenAIRecursiveRef(t *testing.T) {
	d, _ := loadOK(t, corpus(t, "openai-3.1.yaml"))
	cf := d.Schemas["CompoundFilter"]
	if cf == nil {
		t.Fatal("CompoundFilter not reached")
	}
	items := cf.Properties["filters"].Items
	if len(items.OneOf) != 2 || items.OneOf[1].Ref != "CompoundFilter" {
		t.Errorf("$recursiveRef not resolved to CompoundFilter: %+v", items.OneOf)
	}
}

func TestBoxFragmentPaths(t *testing.T) {
	d, _ := loadOK(t, corpus(t, "box-3.0.json"))
	o := findOp(t, d, "PUT", "/files/{file_id}#add_shared_link")
	if o.Path != "/files/{file_id}" {
		t.Errorf("Path = %q", o.Path)
	}
}

func TestGoAdminPathParams(t *testing.T) {
	d, probs := loadOK(t, corpus(t, "go-admin-2.0.json"))
	o := findOp(t, d, "PUT", "/api/v1/dept/{deptId}")
	p := findParam(o, "deptId", "path")
	if p == nil || !p.Required || p.Schema.Type != "string" {
		t.Fatalf("deptId = %+v", p)
	}
	if findParam(o, "id", "path") != nil {
		t.Error("undeclared-in-template path parameter id kept")
	}
	if len(probs.Warnings()) == 0 {
		t.Error("no warnings")
	}
}

func TestFixesSmall(t *testing.T) {
	d, _ := loadOK(t, "testdata/fixes.yaml")
	if !reflect.DeepEqual(d.Servers, []string{"https://eu.example.com/v1"}) {
		t.Errorf("servers = %v", d.Servers)
	}
	if d.Extensions["name"] != "fixes-api" {
		t.Errorf("doc extensions = %v", d.Extensions)
	}
	get := findOp(t, d, "GET", "/items/{id}")
	if get.Extensions["hidden"] != true {
		t.Errorf("op extensions = %v", get.Extensions)
	}
	if get.Pos != (Position{File: "testdata/fixes.yaml", Line: 21, Column: 5}) {
		t.Errorf("op pos = %v", get.Pos)
	}
	if tr := findParam(get, "trace", "header"); tr == nil || tr.Description != "operation-level wins" || tr.Style != "simple" || tr.Explode {
		t.Errorf("trace = %+v", tr)
	}
	q := findParam(get, "q", "query")
	if q.Schema.ExclusiveMinimum == nil || *q.Schema.ExclusiveMinimum != 1 || q.Schema.Minimum != nil || !q.Schema.Nullable || len(q.Schema.Examples) != 1 || !q.Explode {
		t.Errorf("q = %+v / %+v", q, q.Schema)
	}
	if r := get.Responses[0]; r.MediaType != "application/json" || r.Schema.Ref != "Node" {
		t.Errorf("response = %+v", r)
	}
	node := d.Schemas["Node"]
	if node.Properties["children"].Items.Ref != "Node" || !node.Properties["name"].ReadOnly {
		t.Errorf("Node = %+v", node)
	}
	if !reflect.DeepEqual(node.PropertyOrder, []string{"children", "name"}) {
		t.Errorf("order = %v", node.PropertyOrder)
	}
	post := findOp(t, d, "POST", "/items/{id}")
	if post.RequestBody.MediaType != "application/x-www-form-urlencoded" || len(post.RequestBody.MediaTypes) != 2 {
		t.Errorf("body = %+v", post.RequestBody)
	}
}

func TestSwaggerFormData(t *testing.T) {
	d, _ := loadOK(t, corpus(t, "slack-web-2.0.json"))
	o := findOp(t, d, "POST", "/chat.postMessage")
	if o.RequestBody == nil || !reflect.DeepEqual(o.RequestBody.MediaTypes, []string{"application/json", "application/x-www-form-urlencoded"}) || o.RequestBody.Schema == nil || o.RequestBody.Schema.Properties["channel"] == nil {
		t.Fatalf("formData body = %+v", o.RequestBody)
	}
}

// TestIDRefsInFlowMapping checks that an $anchor-based $ref written in a
// YAML flow mapping is rewritten like one in a block mapping.
func TestIDRefsInFlowMapping(t *testing.T) {
	d, _ := loadOK(t, "testdata/idflow.yaml")
	s := findOp(t, d, "GET", "/a").Responses[0].Schema
	if s == nil || s.Ref == "" || d.Schemas[s.Ref].Type != "string" {
		t.Errorf("response schema = %+v", s)
	}
}
