package mapping

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestSnakeCase(t *testing.T) {
	cases := map[string]string{
		"getPetById":                 "get_pet_by_id",
		"GetHTTPResponse2xx":         "get_http_response2xx",
		"listCoreV1NamespacedPod":    "list_core_v1_namespaced_pod",
		"/pet/{petId}/uploadImage":   "pet_pet_id_upload_image",
		"admin.users.session.reset":  "admin_users_session_reset",
		"Create-Account External ID": "create_account_external_id",
		"部门列表":                       "",
	}
	for in, want := range cases {
		if got := SnakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShortenKeepsNamesDistinctAndValid(t *testing.T) {
	a := strings.Repeat("replace_namespaced_custom_object_status_", 3) + "a"
	b := strings.Repeat("replace_namespaced_custom_object_status_", 3) + "b"
	sa, sb := shorten(a, maxToolName), shorten(b, maxToolName)
	if sa == sb {
		t.Fatalf("distinct long names collapsed to %q", sa)
	}
	for _, s := range []string{sa, sb} {
		if !toolNameRE.MatchString(s) {
			t.Errorf("shortened name %q breaks the tool name rule", s)
		}
	}
	if shorten(a, maxToolName) != sa {
		t.Error("shorten is not deterministic")
	}
}

func TestUniqueNamesSuffixInOrder(t *testing.T) {
	got := uniqueNames([]string{"create_account", "list", "create_account", "create_account"}, maxToolName)
	want := []string{"create_account", "list", "create_account_2", "create_account_3"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("uniqueNames = %v, want %v", got, want)
		}
	}
}

func TestMethodPathName(t *testing.T) {
	cases := map[[2]string]string{
		{"GET", "/api/v1/dept/{deptId}"}: "get_dept_by_dept_id",
		{"POST", "/api/v1/login"}:        "post_login",
		{"DELETE", "/"}:                  "delete",
	}
	for in, want := range cases {
		if got := methodPathName(in[0], in[1]); got != want {
			t.Errorf("methodPathName(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestPropertyNameSanitises(t *testing.T) {
	cases := map[string]string{"filter[status]": "filter_status", "X-Request-ID": "X-Request-ID", "$top": "top", "??": "param"}
	for in, want := range cases {
		if got := propertyName(in); got != want {
			t.Errorf("propertyName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGoName(t *testing.T) {
	cases := map[string]string{"get_pet_by_id": "GetPetByID", "list_api_keys": "ListAPIKeys", "2fa_enable": "X2faEnable"}
	for in, want := range cases {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDefaultServerNameIsTheDraftsName: for any title, the default
// mapping names its server as init drafts it (one rule), the name is
// kebab case of at most MaxServerName bytes, and it is stable.
func TestDefaultServerNameIsTheDraftsName(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 41))
	words := strings.Fields("Swagger Petstore - OpenAPI 3.0 API v2 Acme Orders: ( ) Web with fixes from Tic Tac Toe Ünïcode 2024-01-31 the REST Platform | Museum spec Payments v1beta1 _ --")
	for i := 0; i < 2000; i++ {
		parts := make([]string, r.IntN(9))
		for j := range parts {
			parts[j] = words[r.IntN(len(words))]
		}
		title := strings.Join(parts, " ")
		srv := serverInfo(&load.Document{Title: title}, Config{})
		name := ServerName(title)
		if srv.Name != name {
			t.Fatalf("seed %d: title %q: default server %q, ServerName %q", seed, title, srv.Name, name)
		}
		if len(name) == 0 || len(name) > MaxServerName || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(name) {
			t.Fatalf("seed %d: title %q: name %q is not kebab case of 1 to %d bytes", seed, title, name, MaxServerName)
		}
	}
}
