package mapping

import (
	"regexp"
	"strings"
	"testing"
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
