package runtime

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestObjectBindingsNeverHalfBuilt: a step binds an optional object of
// fields {city (required), country (required), street} and a list of two
// inputs; for every random subset of inputs given, the request carries
// exactly the fields given, the object is left out when none is given,
// and a call giving some of the object's inputs but not a required one
// is refused before any request, naming both.
func TestObjectBindingsNeverHalfBuilt(t *testing.T) {
	var mu sync.Mutex
	var got []byte
	requests := 0
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, requests = b, requests+1
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	defer upstream.Close()
	props := `"city":{"type":"string"},"country":{"type":"string"},"street":{"type":"string"},"tag1":{"type":"string"},"tag2":{"type":"string"}`
	def := &ServerDef{Name: "shop", Tools: []*Tool{{
		Name: "ship", Description: "Ship goods.", InputSchema: `{"type":"object","additionalProperties":false,"properties":{` + props + `}}`,
		Steps: []Step{{ID: "ship", Op: Operation{Method: "POST", Path: "/shipments",
			Body: &Body{MediaType: "application/json", Fields: []BodyField{{Name: "address", Arg: "address"}, {Name: "tags", Arg: "tags"}}}},
			Args: []Binding{
				{Arg: "address", Fields: []Binding{
					{Arg: "city", Expr: "${input.city}", Required: true},
					{Arg: "country", Expr: "${input.country}", Required: true},
					{Arg: "kind", Const: `"home"`},
					{Arg: "street", Expr: "${input.street}"},
				}},
				{Arg: "tags", Items: []Binding{{Expr: "${input.tag1}"}, {Expr: "${input.tag2}"}}},
			}}},
	}}}
	srv, err := NewServer(def, Options{BaseURL: upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	names := []string{"city", "country", "street", "tag1", "tag2"}
	for seed := uint64(1); seed <= 64; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		args := map[string]any{}
		for _, n := range names {
			if rng.IntN(2) == 0 {
				args[n] = n + "-value"
			}
		}
		mu.Lock()
		got, requests = nil, 0
		mu.Unlock()
		res, err := srv.CallTool(context.Background(), "ship", args)
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		_, city := args["city"]
		_, country := args["country"]
		_, street := args["street"]
		partial := (city || country || street) && !(city && country)
		if partial {
			if !res.IsError || requests != 0 || !strings.Contains(text, "goes together with") {
				t.Fatalf("seed %d: arguments %v give part of the address: want a refusal before any request, got %d requests and %s", seed, args, requests, text)
			}
			continue
		}
		want := map[string]any{}
		if city && country {
			addr := map[string]any{"city": "city-value", "country": "country-value", "kind": "home"}
			if street {
				addr["street"] = "street-value"
			}
			want["address"] = addr
		}
		var tags []any
		for _, n := range []string{"tag1", "tag2"} {
			if _, ok := args[n]; ok {
				tags = append(tags, n+"-value")
			}
		}
		if len(tags) > 0 {
			want["tags"] = tags
		}
		body := map[string]any{}
		json.Unmarshal(got, &body)
		if res.IsError || !reflect.DeepEqual(body, want) {
			t.Fatalf("seed %d: arguments %v sent %s, want %v (%s)", seed, args, got, want, text)
		}
	}
}
