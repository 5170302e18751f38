package backend_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/examples/petstore/backend"
)

const (
	jsonType = "application/json"
	formType = "application/x-www-form-urlencoded"
)

// client talks to a fresh backend over real HTTP.
type client struct {
	t    *testing.T
	base string
}

// response is a decoded HTTP reply.
type response struct {
	status int
	header http.Header
	body   []byte
}

func newClient(t *testing.T) *client {
	t.Helper()
	srv := httptest.NewServer(backend.NewHandler())
	t.Cleanup(srv.Close)
	return &client{t: t, base: srv.URL + backend.BasePath}
}

// do sends a request and fails the test on transport errors; headers are
// given as alternating name, value pairs.
func (c *client) do(method, path, contentType, body string, headers ...string) response {
	c.t.Helper()
	r, err := c.try(method, path, contentType, body, headers...)
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// try sends a request; it is safe to call from any goroutine.
func (c *client) try(method, path, contentType, body string, headers ...string) (response, error) {
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: data}, err
}

// expect checks the status and JSON content type, then decodes into v (if non-nil).
func (r response) expect(t *testing.T, status int, v any) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, jsonType) {
		t.Fatalf("Content-Type = %q, want %s", ct, jsonType)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			t.Fatalf("decode %s: %v", r.body, err)
		}
	}
}

// expectError checks an error reply's status and exact APIResponse body.
func (r response) expectError(t *testing.T, status int, message string) {
	t.Helper()
	var got backend.APIResponse
	r.expect(t, status, &got)
	if got.Code != status || (message != "" && got.Message != message) {
		t.Fatalf("error body = %+v, want code %d message %q", got, status, message)
	}
}

func petIDs(pets []backend.Pet) []int64 {
	ids := make([]int64, len(pets))
	for i, p := range pets {
		ids[i] = p.ID
	}
	return ids
}

func TestAddPetJSON(t *testing.T) {
	c := newClient(t)
	var p backend.Pet
	c.do("POST", "/pet", jsonType, `{"name":"doggie","photoUrls":["u1"],"category":{"id":1,"name":"Dogs"},"tags":[{"name":"new"}],"status":"pending"}`).
		expect(t, http.StatusOK, &p)
	if p.ID != 11 || p.Name != "doggie" || p.Status != "pending" || p.Category.Name != "Dogs" || p.Tags[0].Name != "new" {
		t.Fatalf("created pet = %+v", p)
	}
	var got backend.Pet
	c.do("GET", "/pet/11", "", "").expect(t, http.StatusOK, &got)
	if got.Name != "doggie" {
		t.Fatalf("stored pet = %+v", got)
	}
	c.do("POST", "/pet", jsonType, `{"id":42,"name":"answer","photoUrls":[]}`).expect(t, http.StatusOK, &p)
	if p.ID != 42 || p.Status != "available" || p.PhotoURLs == nil || p.Tags == nil {
		t.Fatalf("pet with explicit id = %+v", p)
	}
}

func TestAddPetForm(t *testing.T) {
	c := newClient(t)
	form := url.Values{
		"name":          {"Formy"},
		"photoUrls":     {"a.jpg", "b.jpg"},
		"category.name": {"Cats"},
		"tags":          {"x", "y"},
		"status":        {"sold"},
	}
	var p backend.Pet
	c.do("POST", "/pet", formType, form.Encode()).expect(t, http.StatusOK, &p)
	if p.ID != 11 || p.Name != "Formy" || p.Status != "sold" || len(p.PhotoURLs) != 2 ||
		p.Category == nil || p.Category.Name != "Cats" || len(p.Tags) != 2 || p.Tags[1].Name != "y" {
		t.Fatalf("form pet = %+v", p)
	}
	deep := "id=77&name=Deep&photoUrls[]=p.jpg&category[id]=2&category[name]=Cats&tags[0][id]=9&tags[0][name]=nine"
	c.do("POST", "/pet", formType, deep).expect(t, http.StatusOK, &p)
	if p.ID != 77 || p.Category.ID != 2 || len(p.Tags) != 1 || p.Tags[0].ID != 9 || p.PhotoURLs[0] != "p.jpg" {
		t.Fatalf("deepObject form pet = %+v", p)
	}
	c.do("POST", "/pet", formType, "name=NoPhotos").expectError(t, http.StatusUnprocessableEntity, "")
	c.do("POST", "/pet", formType, "id=abc&name=x&photoUrls=y").expectError(t, http.StatusBadRequest, "")
}

func TestAddPetInvalid(t *testing.T) {
	c := newClient(t)
	cases := []struct {
		name, contentType, body string
		status                  int
	}{
		{"missing name", jsonType, `{"photoUrls":["a"]}`, http.StatusUnprocessableEntity},
		{"missing photoUrls", jsonType, `{"name":"a"}`, http.StatusUnprocessableEntity},
		{"bad status", jsonType, `{"name":"a","photoUrls":[],"status":"lost"}`, http.StatusUnprocessableEntity},
		{"malformed JSON", jsonType, `{"name":`, http.StatusBadRequest},
		{"wrong type", jsonType, `{"id":"x","name":"a","photoUrls":[]}`, http.StatusBadRequest},
		{"empty body", jsonType, ``, http.StatusBadRequest},
		{"xml body", "application/xml", `<pet/>`, http.StatusUnsupportedMediaType},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.do("POST", "/pet", tc.contentType, tc.body).expectError(t, tc.status, "")
		})
	}
}

func TestUpdatePet(t *testing.T) {
	c := newClient(t)
	var p backend.Pet
	c.do("PUT", "/pet", jsonType, `{"id":1,"name":"Rex II","photoUrls":["r.jpg"],"status":"sold"}`).expect(t, http.StatusOK, &p)
	if p.ID != 1 || p.Name != "Rex II" || p.Status != "sold" || p.Category != nil {
		t.Fatalf("updated pet = %+v", p)
	}
	c.do("PUT", "/pet", formType, "id=2&name=Whisk&photoUrls=w.jpg&status=pending").expect(t, http.StatusOK, &p)
	if p.ID != 2 || p.Name != "Whisk" || p.Status != "pending" {
		t.Fatalf("form-updated pet = %+v", p)
	}
	c.do("PUT", "/pet", jsonType, `{"id":999,"name":"x","photoUrls":[]}`).expectError(t, http.StatusNotFound, "Pet not found")
	c.do("PUT", "/pet", jsonType, `{"name":"x","photoUrls":[]}`).expectError(t, http.StatusBadRequest, "Invalid ID supplied")
	c.do("PUT", "/pet", jsonType, `{"id":1,"photoUrls":[]}`).expectError(t, http.StatusUnprocessableEntity, "")
}

func TestFindPetsByStatus(t *testing.T) {
	c := newClient(t)
	cases := []struct {
		query string
		want  []int64
	}{
		{"", []int64{1, 2, 5, 8, 9}},
		{"?status=sold", []int64{4, 7}},
		{"?status=sold&status=pending", []int64{3, 4, 6, 7, 10}},
		{"?status=sold,pending", []int64{3, 4, 6, 7, 10}},
	}
	for _, tc := range cases {
		var pets []backend.Pet
		c.do("GET", "/pet/findByStatus"+tc.query, "", "").expect(t, http.StatusOK, &pets)
		if got := petIDs(pets); !slices.Equal(got, tc.want) {
			t.Errorf("findByStatus%s = %v, want %v", tc.query, got, tc.want)
		}
	}
	c.do("GET", "/pet/findByStatus?status=lost", "", "").expectError(t, http.StatusBadRequest, "Invalid status value")
}

func TestFindPetsByTags(t *testing.T) {
	c := newClient(t)
	var pets []backend.Pet
	c.do("GET", "/pet/findByTags?tags=tag1&tags=tag3", "", "").expect(t, http.StatusOK, &pets)
	if got, want := petIDs(pets), []int64{1, 3, 4, 5, 8, 10}; !slices.Equal(got, want) {
		t.Fatalf("findByTags repeated = %v, want %v", got, want)
	}
	c.do("GET", "/pet/findByTags?tags=playful,friendly", "", "").expect(t, http.StatusOK, &pets)
	if got, want := petIDs(pets), []int64{1, 3, 6, 7, 9}; !slices.Equal(got, want) {
		t.Fatalf("findByTags comma = %v, want %v", got, want)
	}
	c.do("GET", "/pet/findByTags?tags=nope", "", "").expect(t, http.StatusOK, &pets)
	if len(pets) != 0 {
		t.Fatalf("findByTags unknown = %v", petIDs(pets))
	}
	c.do("GET", "/pet/findByTags", "", "").expectError(t, http.StatusBadRequest, "")
}

func TestGetPetByID(t *testing.T) {
	c := newClient(t)
	var p backend.Pet
	c.do("GET", "/pet/1", "", "").expect(t, http.StatusOK, &p)
	if p.ID != 1 || p.Name != "Rex" || p.Category.Name != "Dogs" || p.Status != "available" || len(p.PhotoURLs) != 1 {
		t.Fatalf("pet 1 = %+v", p)
	}
	r := c.do("GET", "/pet/999", "", "")
	r.expectError(t, http.StatusNotFound, "Pet not found")
	if want := `{"code":404,"message":"Pet not found"}`; strings.TrimSpace(string(r.body)) != want {
		t.Fatalf("404 body = %s, want %s", r.body, want)
	}
	c.do("GET", "/pet/abc", "", "").expectError(t, http.StatusBadRequest, "Invalid ID supplied")
	c.do("GET", "/pet/-3", "", "").expectError(t, http.StatusBadRequest, "Invalid ID supplied")
}

func TestUpdatePetWithForm(t *testing.T) {
	c := newClient(t)
	var p backend.Pet
	c.do("POST", "/pet/2?name=Tom&status=sold", "", "").expect(t, http.StatusOK, &p)
	if p.ID != 2 || p.Name != "Tom" || p.Status != "sold" || p.Category.Name != "Cats" {
		t.Fatalf("updated pet = %+v", p)
	}
	c.do("GET", "/pet/2", "", "").expect(t, http.StatusOK, &p)
	if p.Name != "Tom" {
		t.Fatalf("stored pet = %+v", p)
	}
	c.do("POST", "/pet/2?status=lost", "", "").expectError(t, http.StatusBadRequest, "")
	c.do("POST", "/pet/999?name=x", "", "").expectError(t, http.StatusNotFound, "Pet not found")
	c.do("POST", "/pet/x?name=x", "", "").expectError(t, http.StatusBadRequest, "Invalid ID supplied")
}

func TestDeletePet(t *testing.T) {
	c := newClient(t)
	c.do("DELETE", "/pet/3", "", "", "api_key", "special-key").expectError(t, http.StatusOK, "Pet deleted")
	c.do("GET", "/pet/3", "", "").expectError(t, http.StatusNotFound, "Pet not found")
	c.do("DELETE", "/pet/3", "", "").expectError(t, http.StatusNotFound, "Pet not found")
	c.do("DELETE", "/pet/abc", "", "").expectError(t, http.StatusBadRequest, "Invalid pet value")
}

func TestUploadFile(t *testing.T) {
	c := newClient(t)
	var ar backend.APIResponse
	c.do("POST", "/pet/1/uploadImage?additionalMetadata=front", "application/octet-stream", "\x89PNG-bytes").
		expect(t, http.StatusOK, &ar)
	if ar.Code != 200 || !strings.Contains(ar.Message, "additionalMetadata: front") || !strings.Contains(ar.Message, "10 bytes") {
		t.Fatalf("upload response = %+v", ar)
	}
	c.do("POST", "/pet/1/uploadImage", "application/octet-stream", "").expectError(t, http.StatusBadRequest, "No file uploaded")
	c.do("POST", "/pet/999/uploadImage", "application/octet-stream", "x").expectError(t, http.StatusNotFound, "Pet not found")
	c.do("POST", "/pet/z/uploadImage", "application/octet-stream", "x").expectError(t, http.StatusBadRequest, "")
}

func TestGetInventory(t *testing.T) {
	c := newClient(t)
	var inv map[string]int32
	c.do("GET", "/store/inventory", "", "").expect(t, http.StatusOK, &inv)
	if inv["available"] != 5 || inv["pending"] != 3 || inv["sold"] != 2 {
		t.Fatalf("inventory = %v", inv)
	}
	c.do("POST", "/pet/1?status=sold", "", "").expect(t, http.StatusOK, nil)
	c.do("GET", "/store/inventory", "", "").expect(t, http.StatusOK, &inv)
	if inv["available"] != 4 || inv["sold"] != 3 {
		t.Fatalf("inventory after sale = %v", inv)
	}
}

func TestOrders(t *testing.T) {
	c := newClient(t)
	var o backend.Order
	c.do("POST", "/store/order", jsonType, `{"petId":1,"quantity":2}`).expect(t, http.StatusOK, &o)
	if o.ID != 4 || o.PetID != 1 || o.Quantity != 2 || o.Status != "placed" || o.ShipDate == "" {
		t.Fatalf("placed order = %+v", o)
	}
	c.do("POST", "/store/order", formType, "id=20&petId=2&quantity=1&status=approved&complete=true&shipDate=2025-01-02T03:04:05Z").
		expect(t, http.StatusOK, &o)
	if o.ID != 20 || o.Status != "approved" || !o.Complete || o.ShipDate != "2025-01-02T03:04:05Z" {
		t.Fatalf("form order = %+v", o)
	}
	c.do("GET", "/store/order/1", "", "").expect(t, http.StatusOK, &o)
	if o.ID != 1 || o.PetID != 4 || o.Status != "delivered" || !o.Complete {
		t.Fatalf("order 1 = %+v", o)
	}
	c.do("GET", "/store/order/999", "", "").expectError(t, http.StatusNotFound, "Order not found")
	c.do("GET", "/store/order/abc", "", "").expectError(t, http.StatusBadRequest, "Invalid ID supplied")
	c.do("POST", "/store/order", jsonType, `{"petId":1,"status":"lost"}`).expectError(t, http.StatusUnprocessableEntity, "")
	c.do("POST", "/store/order", jsonType, `{"petId":1,"shipDate":"tomorrow"}`).expectError(t, http.StatusUnprocessableEntity, "")
	c.do("POST", "/store/order", jsonType, ``).expectError(t, http.StatusBadRequest, "")
	c.do("DELETE", "/store/order/2", "", "").expectError(t, http.StatusOK, "Order deleted")
	c.do("GET", "/store/order/2", "", "").expectError(t, http.StatusNotFound, "Order not found")
	c.do("DELETE", "/store/order/2", "", "").expectError(t, http.StatusNotFound, "Order not found")
	c.do("DELETE", "/store/order/x", "", "").expectError(t, http.StatusBadRequest, "Invalid ID supplied")
}

func TestCreateUsers(t *testing.T) {
	c := newClient(t)
	var u backend.User
	c.do("POST", "/user", jsonType, `{"username":"alice","password":"pw","email":"a@x.io","userStatus":1}`).expect(t, http.StatusOK, &u)
	if u.ID != 3 || u.Username != "alice" || u.Email != "a@x.io" {
		t.Fatalf("created user = %+v", u)
	}
	c.do("POST", "/user", formType, "username=bob&firstName=Bob&userStatus=2").expect(t, http.StatusOK, &u)
	if u.ID != 4 || u.Username != "bob" || u.FirstName != "Bob" || u.UserStatus != 2 {
		t.Fatalf("form user = %+v", u)
	}
	c.do("POST", "/user", jsonType, `{"firstName":"anon"}`).expectError(t, http.StatusUnprocessableEntity, "")
	c.do("POST", "/user/createWithList", jsonType, `[{"username":"carol"},{"id":50,"username":"dave"}]`).expect(t, http.StatusOK, &u)
	if u.Username != "carol" || u.ID != 5 {
		t.Fatalf("createWithList reply = %+v", u)
	}
	c.do("GET", "/user/dave", "", "").expect(t, http.StatusOK, &u)
	if u.ID != 50 {
		t.Fatalf("dave = %+v", u)
	}
	c.do("POST", "/user/createWithList", jsonType, `[]`).expectError(t, http.StatusBadRequest, "")
	c.do("POST", "/user/createWithList", formType, "username=x").expectError(t, http.StatusUnsupportedMediaType, "")
}

func TestLoginLogout(t *testing.T) {
	c := newClient(t)
	r := c.do("GET", "/user/login?username=user1&password=password1", "", "")
	var session string
	r.expect(t, http.StatusOK, &session)
	if !strings.HasPrefix(session, "logged in user session:") {
		t.Fatalf("session = %q", session)
	}
	if r.header.Get("X-Rate-Limit") != "5000" {
		t.Fatalf("X-Rate-Limit = %q", r.header.Get("X-Rate-Limit"))
	}
	if exp, err := time.Parse(time.RFC3339, r.header.Get("X-Expires-After")); err != nil || !exp.After(time.Now()) {
		t.Fatalf("X-Expires-After = %q (%v)", r.header.Get("X-Expires-After"), err)
	}
	c.do("GET", "/user/login?username=user1&password=wrong", "", "").
		expectError(t, http.StatusBadRequest, "Invalid username/password supplied")
	c.do("GET", "/user/login", "", "").expectError(t, http.StatusBadRequest, "")
	c.do("GET", "/user/logout", "", "").expectError(t, http.StatusOK, "User logged out")
}

func TestUserByName(t *testing.T) {
	c := newClient(t)
	var u backend.User
	c.do("GET", "/user/user1", "", "").expect(t, http.StatusOK, &u)
	if u.ID != 1 || u.Password != "password1" {
		t.Fatalf("user1 = %+v", u)
	}
	c.do("GET", "/user/ghost", "", "").expectError(t, http.StatusNotFound, "User not found")
	c.do("PUT", "/user/user1", jsonType, `{"firstName":"Changed","email":"c@x.io"}`).expect(t, http.StatusOK, &u)
	if u.ID != 1 || u.Username != "user1" || u.FirstName != "Changed" {
		t.Fatalf("updated user1 = %+v", u)
	}
	c.do("PUT", "/user/user1", formType, "username=user1b&lastName=Form").expect(t, http.StatusOK, &u)
	if u.ID != 1 || u.Username != "user1b" || u.LastName != "Form" {
		t.Fatalf("renamed user1 = %+v", u)
	}
	c.do("GET", "/user/user1", "", "").expectError(t, http.StatusNotFound, "User not found")
	c.do("PUT", "/user/user1b", jsonType, `{"username":"user2"}`).expectError(t, http.StatusBadRequest, "")
	c.do("PUT", "/user/ghost", jsonType, `{"firstName":"x"}`).expectError(t, http.StatusNotFound, "User not found")
	c.do("DELETE", "/user/user2", "", "").expectError(t, http.StatusOK, "User deleted")
	c.do("GET", "/user/user2", "", "").expectError(t, http.StatusNotFound, "User not found")
	c.do("DELETE", "/user/user2", "", "").expectError(t, http.StatusNotFound, "User not found")
}

func TestUnknownRoutesAnswerJSON(t *testing.T) {
	c := newClient(t)
	c.do("GET", "/nowhere", "", "").expectError(t, http.StatusNotFound, "Not Found")
	r := c.do("PATCH", "/pet", jsonType, `{}`)
	r.expectError(t, http.StatusMethodNotAllowed, "Method Not Allowed")
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "POST") || !strings.Contains(allow, "PUT") {
		t.Fatalf("Allow = %q", allow)
	}
}

func TestHandlersHaveIndependentStores(t *testing.T) {
	a, b := newClient(t), newClient(t)
	a.do("DELETE", "/pet/1", "", "").expect(t, http.StatusOK, nil)
	a.do("GET", "/pet/1", "", "").expectError(t, http.StatusNotFound, "Pet not found")
	b.do("GET", "/pet/1", "", "").expect(t, http.StatusOK, nil)
}

// concurrentWorker runs a mix of reads and writes, reporting failures with
// t.Errorf (never t.Fatal, as it runs outside the test goroutine).
func concurrentWorker(t *testing.T, c *client, w, n int) {
	for i := range n {
		reqs := []struct{ method, path, contentType, body string }{
			{"POST", "/pet", jsonType, fmt.Sprintf(`{"name":"w%d-%d","photoUrls":["p"],"tags":[{"name":"conc"}]}`, w, i)},
			{"POST", fmt.Sprintf("/pet/%d?status=pending", 1+i%10), "", ""},
			{"PUT", "/pet", jsonType, `{"id":6,"name":"Bella","photoUrls":["b"],"status":"sold"}`},
			{"POST", "/pet/5/uploadImage", "application/octet-stream", "img"},
			{"GET", "/store/inventory", "", ""},
			{"POST", "/store/order", jsonType, `{"petId":1,"quantity":1}`},
			{"POST", "/user", formType, fmt.Sprintf("username=u%d-%d", w, i)},
			{"GET", "/pet/findByTags?tags=conc", "", ""},
			{"GET", "/pet/findByStatus?status=pending", "", ""},
		}
		for _, rq := range reqs {
			r, err := c.try(rq.method, rq.path, rq.contentType, rq.body)
			if err != nil || r.status != http.StatusOK {
				t.Errorf("%s %s: status %d, err %v, body %s", rq.method, rq.path, r.status, err, r.body)
			}
		}
	}
}

func TestConcurrentRequests(t *testing.T) {
	c := newClient(t)
	const workers, perWorker = 8, 10
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			concurrentWorker(t, c, w, perWorker)
		}()
	}
	wg.Wait()
	var pets []backend.Pet
	c.do("GET", "/pet/findByTags?tags=conc", "", "").expect(t, http.StatusOK, &pets)
	if len(pets) != workers*perWorker {
		t.Fatalf("concurrently added pets = %d, want %d", len(pets), workers*perWorker)
	}
	seen := map[int64]bool{}
	for _, p := range pets {
		if seen[p.ID] {
			t.Fatalf("duplicate id %d", p.ID)
		}
		seen[p.ID] = true
	}
}
