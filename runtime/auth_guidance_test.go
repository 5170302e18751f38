package runtime

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUnauthorizedNamesTheCredentialsSent: for random orders of an
// operation's security alternatives and random sets of configured
// variables, a 401 names the variables of the credentials the request
// carried and no others; with none configured it names every
// alternative.
func TestUnauthorizedNamesTheCredentialsSent(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"message":"unauthorized"}`))
	}))
	defer upstream.Close()
	schemes := []SecurityScheme{
		{Name: "basic", Kind: "basic", EnvVar: "PAY_USERNAME", PasswordEnv: "PAY_PASSWORD"},
		{Name: "key", Kind: "apiKey", In: "header", ParamName: "X-API-Key", EnvVar: "PAY_API_KEY"},
		{Name: "bearer", Kind: "bearer", EnvVar: "PAY_TOKEN"},
	}
	vars := map[string][]string{"basic": {"PAY_USERNAME", "PAY_PASSWORD"}, "key": {"PAY_API_KEY"}, "bearer": {"PAY_TOKEN"}}
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		order := []string{"basic", "key", "bearer"}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		env := map[string]string{}
		for _, name := range order {
			if rng.IntN(2) == 0 {
				for _, v := range vars[name] {
					env[v] = "secret-" + strings.ToLower(v)
				}
			}
		}
		var security [][]string
		for _, name := range order {
			security = append(security, []string{name})
		}
		def := &ServerDef{Name: "pay", EnvPrefix: "PAY", Security: schemes, Tools: []*Tool{{
			Name: "refund", Description: "Refund a payment.", InputSchema: `{"type":"object","additionalProperties":false}`,
			Op: &Operation{Method: "POST", Path: "/refunds", Security: security}}}}
		srv, err := NewServer(def, Options{BaseURL: upstream.URL, Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := srv.CallTool(context.Background(), "refund", map[string]any{})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		used := ""
		for _, name := range order {
			if env[vars[name][0]] != "" {
				used = name
				break
			}
		}
		for name, vs := range vars {
			for _, v := range vs {
				want := used == "" || name == used
				if strings.Contains(text, v) != want {
					t.Fatalf("seed %d: order %v, configured %v: the 401 message should name %s: %v\n%s", seed, order, env, v, want, text)
				}
			}
		}
	}
}
