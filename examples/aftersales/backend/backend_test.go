package backend

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const jsonType = "application/json"

// testNow is the fixed clock of the test handlers.
var testNow = time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)

// client talks to a fresh backend over real HTTP.
type client struct {
	t    *testing.T
	base string
}

// response is an HTTP reply.
type response struct {
	status int
	header http.Header
	body   []byte
}

func newClient(t *testing.T) *client {
	t.Helper()
	return newClientFor(t, newHandler(func() time.Time { return testNow }))
}

func newClientFor(t *testing.T, h http.Handler) *client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &client{t: t, base: srv.URL + BasePath}
}

// do sends a request (body is sent as JSON when non-empty) and fails the
// test on transport errors; headers are alternating name, value pairs.
func (c *client) do(method, path, body string, headers ...string) response {
	c.t.Helper()
	r, err := c.try(method, path, body, headers...)
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// try sends a request; it is safe to call from any goroutine.
func (c *client) try(method, path, body string, headers ...string) (response, error) {
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", jsonType)
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
	if ct := r.header.Get("Content-Type"); ct != jsonType {
		t.Fatalf("Content-Type = %q, want %s", ct, jsonType)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			t.Fatalf("decode %s: %v", r.body, err)
		}
	}
}

// expectProblem checks a problem+json reply: its status, type suffix and
// (for 422) the fields named in errors, in order. It returns the problem.
func (r response) expectProblem(t *testing.T, status int, kind string, fields ...string) Problem {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json", ct)
	}
	var p Problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	if p.Status != status || p.Type != problemBase+kind || p.Title == "" || p.Detail == "" || p.Instance == "" {
		t.Fatalf("problem = %+v, want status %d type %s with title, detail and instance", p, status, kind)
	}
	var got []string
	for _, e := range p.Errors {
		if e.Message == "" {
			t.Fatalf("field error without message: %+v", p)
		}
		got = append(got, e.Field)
	}
	if status == http.StatusUnprocessableEntity && len(fields) == 0 {
		t.Fatalf("a 422 problem must name fields, test names none: %+v", p)
	}
	if len(fields) > 0 && !slices.Equal(got, fields) {
		t.Fatalf("problem fields = %v, want %v (%+v)", got, fields, p)
	}
	return p
}

func ticketIDs(items []TicketSummary) []string {
	ids := make([]string, len(items))
	for i, t := range items {
		ids[i] = t.ID
	}
	return ids
}

func TestGetTicket(t *testing.T) {
	c := newClient(t)
	var tk Ticket
	c.do("GET", "/tickets/T-2026-1001", "").expect(t, http.StatusOK, &tk)
	if tk.ID != "T-2026-1001" || tk.Status != "repair" || tk.OrderID != "O-100001" || tk.CustomerID != "C-1" ||
		tk.Reason != "defect" || tk.EstimatedCompletion == nil || *tk.EstimatedCompletion != "2026-03-28" ||
		!tk.CreatedAt.Equal(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("ticket = %+v", tk)
	}
	r := c.do("GET", "/tickets/T-2026-1003", "")
	r.expect(t, http.StatusOK, &tk)
	if tk.Status != "closed" || !strings.Contains(string(r.body), `"estimated_completion":null`) {
		t.Fatalf("closed ticket = %s", r.body)
	}
	c.do("GET", "/tickets/T-2026-9999", "").expectProblem(t, http.StatusNotFound, "not-found")
	p := c.do("GET", "/tickets/bad-123", "").expectProblem(t, http.StatusBadRequest, "bad-request")
	if !strings.Contains(p.Detail, "T-YYYY-NNNN") {
		t.Fatalf("detail = %q", p.Detail)
	}
}

func TestGetTicketProgress(t *testing.T) {
	c := newClient(t)
	var p TicketProgress
	c.do("GET", "/tickets/T-2026-1001/progress", "").expect(t, http.StatusOK, &p)
	var stages []string
	for _, e := range p.Events {
		stages = append(stages, e.Stage)
		if e.Note == "" || e.At.IsZero() {
			t.Fatalf("event = %+v", e)
		}
	}
	if p.TicketID != "T-2026-1001" || !slices.Equal(stages, []string{"received", "review", "repair"}) {
		t.Fatalf("progress = %+v", p)
	}
	c.do("GET", "/tickets/T-2026-0001/progress", "").expectProblem(t, http.StatusNotFound, "not-found")
	c.do("GET", "/tickets/T-26-1/progress", "").expectProblem(t, http.StatusBadRequest, "bad-request")
}

func TestListTickets(t *testing.T) {
	c := newClient(t)
	cases := []struct {
		query string
		want  []string
		total int
	}{
		{"", []string{"T-2026-1005", "T-2026-1004", "T-2026-1003", "T-2026-1002", "T-2026-1001"}, 5},
		{"?customer_id=C-1", []string{"T-2026-1003", "T-2026-1001"}, 2},
		{"?status=review", []string{"T-2026-1004"}, 1},
		{"?customer_id=C-3&status=cancelled", []string{"T-2026-1005"}, 1},
		{"?limit=2&offset=1", []string{"T-2026-1004", "T-2026-1003"}, 5},
		{"?offset=5", []string{}, 5},
		{"?customer_id=C-42", []string{}, 0},
	}
	for _, tc := range cases {
		var page TicketPage
		r := c.do("GET", "/tickets"+tc.query, "")
		r.expect(t, http.StatusOK, &page)
		if got := ticketIDs(page.Items); !slices.Equal(got, tc.want) || page.Total != tc.total {
			t.Errorf("tickets%s = %v total %d, want %v total %d", tc.query, got, page.Total, tc.want, tc.total)
		}
		if !strings.Contains(string(r.body), `"items":[`) {
			t.Errorf("tickets%s: items must be an array: %s", tc.query, r.body)
		}
	}
	var page TicketPage
	c.do("GET", "/tickets?limit=3&offset=2", "").expect(t, http.StatusOK, &page)
	if page.Limit != 3 || page.Offset != 2 {
		t.Fatalf("page = %+v", page)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?offset=-1", "?status=lost", "?customer_id=bob"} {
		c.do("GET", "/tickets"+q, "").expectProblem(t, http.StatusBadRequest, "bad-request")
	}
}

func TestValidateTicket(t *testing.T) {
	c := newClient(t)
	cases := []struct {
		name, body string
		valid      bool
		codes      []string
		amount     float64
		customer   string
	}{
		{"whole order, closed ticket does not block", `{"order_id":"O-100002","reason":"defect"}`, true, nil, 149, "C-1"},
		{"open ticket", `{"order_id":"O-100001","reason":"defect"}`, false, []string{"open_ticket_exists"}, 119.8, "C-1"},
		{"unknown order", `{"order_id":"O-999999","reason":"defect"}`, false, []string{"order_not_found"}, 0, ""},
		{"final sale, whole order", `{"order_id":"O-100004","reason":"changed_mind"}`, false, []string{"final_sale"}, 76.5, "C-2"},
		{"returnable line only", `{"order_id":"O-100004","reason":"changed_mind","items":[{"sku":"PS-65W","quantity":1}]}`, true, nil, 39, "C-2"},
		{"final sale defect is fine", `{"order_id":"O-100004","reason":"defect","items":[{"sku":"CB-USB-C","quantity":2}]}`, true, nil, 25, "C-2"},
		{"item problems", `{"order_id":"O-100006","reason":"defect","items":[{"sku":"KB-200","quantity":1},{"sku":"PH-12","quantity":3}]}`,
			false, []string{"item_not_in_order", "quantity_exceeds_order"}, 0, "C-3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var res ValidationResult
			c.do("POST", "/tickets/validate", tc.body).expect(t, http.StatusOK, &res)
			var codes []string
			for _, p := range res.Problems {
				codes = append(codes, p.Code)
			}
			if res.Valid != tc.valid || !slices.Equal(codes, tc.codes) || res.RefundableAmount != tc.amount ||
				res.CustomerID != tc.customer || res.Currency != "EUR" || res.Problems == nil {
				t.Fatalf("result = %+v", res)
			}
		})
	}
	c.do("POST", "/tickets/validate", `{"order_id":"100001","items":[{"sku":"kb","quantity":0}]}`).
		expectProblem(t, http.StatusUnprocessableEntity, "validation", "order_id", "reason", "items[0].sku", "items[0].quantity")
	c.do("POST", "/tickets/validate", `{"order_id":"O-100001","reason":"defect","items":"all"}`).
		expectProblem(t, http.StatusUnprocessableEntity, "validation", "items")
	c.do("POST", "/tickets/validate", `{"order_id":`).expectProblem(t, http.StatusBadRequest, "bad-request")
	c.do("POST", "/tickets/validate", "").expectProblem(t, http.StatusBadRequest, "bad-request")
	c.do("POST", "/tickets/validate", "order_id=O-100001", "Content-Type", "application/x-www-form-urlencoded").
		expectProblem(t, http.StatusUnsupportedMediaType, "unsupported-media-type")
	big := `{"order_id":"O-100001","reason":"defect","description":"` + strings.Repeat("x", maxBodyBytes) + `"}`
	c.do("POST", "/tickets/validate", big).expectProblem(t, http.StatusRequestEntityTooLarge, "payload-too-large")
}

func TestRiskCheck(t *testing.T) {
	c := newClient(t)
	cases := []struct {
		body     string
		score    float64
		decision string
	}{
		{`{"order_id":"O-100002","customer_id":"C-1","amount":149}`, 0.18, "allow"},
		{`{"order_id":"O-100006","customer_id":"C-3","amount":39.8}`, 0.56, "review"},
		{`{"order_id":"O-100007","customer_id":"C-3","amount":2499}`, 0.95, "deny"},
		{`{"order_id":"O-100001","customer_id":"C-2","amount":119.8}`, 0.72, "deny"},
		{`{"order_id":"O-100002","customer_id":"C-77","amount":0}`, 0.7, "deny"},
	}
	for i, tc := range cases {
		var res RiskResult
		c.do("POST", "/risk/check", tc.body).expect(t, http.StatusOK, &res)
		if res.Score != tc.score || res.Decision != tc.decision || res.Reasons == nil || res.AssessmentID != fmt.Sprintf("RA-%06d", i+1) {
			t.Errorf("risk %s = %+v, want %v %s", tc.body, res, tc.score, tc.decision)
		}
	}
	c.do("POST", "/risk/check", `{"order_id":"O-999999","customer_id":"C-1","amount":1}`).expectProblem(t, http.StatusNotFound, "not-found")
	c.do("POST", "/risk/check", `{"order_id":"O-100001","customer_id":"C-1"}`).
		expectProblem(t, http.StatusUnprocessableEntity, "validation", "amount")
	c.do("POST", "/risk/check", `{"order_id":"O-100001","customer_id":"C-1","amount":-5}`).
		expectProblem(t, http.StatusUnprocessableEntity, "validation", "amount")
	c.do("POST", "/risk/check", `{"order_id":"O-100001","customer_id":"C-1","amount":"lots"}`).
		expectProblem(t, http.StatusUnprocessableEntity, "validation", "amount")
	c.do("POST", "/risk/check", `{"amount":1}`).
		expectProblem(t, http.StatusUnprocessableEntity, "validation", "order_id", "customer_id")
}

const newTicketBody = `{"order_id":"O-100002","customer_id":"C-1","reason":"defect","description":"Left ear cup crackles.","refund_method":"original_payment"}`

func TestCreateTicket(t *testing.T) {
	c := newClient(t)
	var tk Ticket
	r := c.do("POST", "/tickets", newTicketBody)
	r.expect(t, http.StatusCreated, &tk)
	if tk.ID != "T-2026-1006" || tk.Status != "review" || tk.OrderID != "O-100002" || tk.CustomerID != "C-1" ||
		tk.Reason != "defect" || tk.RefundMethod != "original_payment" || tk.Description != "Left ear cup crackles." ||
		!tk.CreatedAt.Equal(testNow) || tk.EstimatedCompletion == nil || *tk.EstimatedCompletion != "2026-04-24" {
		t.Fatalf("created ticket = %+v", tk)
	}
	if loc := r.header.Get("Location"); loc != "/api/tickets/T-2026-1006" {
		t.Fatalf("Location = %q", loc)
	}
	var got Ticket
	c.do("GET", "/tickets/T-2026-1006", "").expect(t, http.StatusOK, &got)
	if !reflect.DeepEqual(got, tk) {
		t.Fatalf("stored ticket = %+v, want %+v", got, tk)
	}
	var p TicketProgress
	c.do("GET", "/tickets/T-2026-1006/progress", "").expect(t, http.StatusOK, &p)
	if len(p.Events) != 1 || p.Events[0].Stage != "received" {
		t.Fatalf("progress = %+v", p)
	}
	var res ValidationResult
	c.do("POST", "/tickets/validate", `{"order_id":"O-100002","reason":"defect"}`).expect(t, http.StatusOK, &res)
	if res.Valid {
		t.Fatalf("validation after create = %+v", res)
	}
	prob := c.do("POST", "/tickets", newTicketBody).expectProblem(t, http.StatusConflict, "duplicate-ticket")
	if !strings.Contains(prob.Detail, "T-2026-1006") {
		t.Fatalf("409 detail = %q", prob.Detail)
	}

	// A risky customer's ticket is flagged for review and takes longer.
	c.do("POST", "/tickets", `{"order_id":"O-100006","customer_id":"C-3","reason":"changed_mind","refund_method":"store_credit"}`).
		expect(t, http.StatusCreated, &tk)
	c.do("GET", "/tickets/"+tk.ID+"/progress", "").expect(t, http.StatusOK, &p)
	if tk.ID != "T-2026-1007" || *tk.EstimatedCompletion != "2026-04-20" || len(p.Events) != 2 || p.Events[1].Stage != "review" {
		t.Fatalf("risky ticket = %+v, progress %+v", tk, p)
	}
}

func TestCreateTicketErrors(t *testing.T) {
	c := newClient(t)
	cases := []struct {
		name, body string
		status     int
		kind       string
		fields     []string
	}{
		{"unknown order", `{"order_id":"O-999999","customer_id":"C-1","reason":"defect","refund_method":"store_credit"}`, 404, "not-found", nil},
		{"other customer's order", `{"order_id":"O-100002","customer_id":"C-2","reason":"defect","refund_method":"store_credit"}`, 422, "validation", []string{"customer_id"}},
		{"open ticket", `{"order_id":"O-100005","customer_id":"C-3","reason":"defect","refund_method":"store_credit"}`, 409, "duplicate-ticket", nil},
		{"final sale", `{"order_id":"O-100004","customer_id":"C-2","reason":"changed_mind","refund_method":"store_credit"}`, 422, "validation", []string{"reason"}},
		{"bank transfer for changed mind", `{"order_id":"O-100002","customer_id":"C-1","reason":"changed_mind","refund_method":"bank_transfer"}`, 422, "validation", []string{"refund_method"}},
		{"risk denied", `{"order_id":"O-100007","customer_id":"C-3","reason":"not_as_described","refund_method":"original_payment"}`, 422, "risk-denied", []string{"customer_id"}},
		{"everything missing", `{}`, 422, "validation", []string{"order_id", "customer_id", "reason", "refund_method"}},
		{"bad formats", `{"order_id":"O-1","customer_id":"1","reason":"bored","refund_method":"cash","description":"` + strings.Repeat("é", 2001) + `"}`,
			422, "validation", []string{"order_id", "customer_id", "reason", "refund_method", "description"}},
		{"malformed", `[`, 400, "bad-request", nil},
		{"not an object", `[]`, 400, "bad-request", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.do("POST", "/tickets", tc.body).expectProblem(t, tc.status, tc.kind, tc.fields...)
		})
	}
	var page TicketPage
	c.do("GET", "/tickets", "").expect(t, http.StatusOK, &page)
	if page.Total != 5 {
		t.Fatalf("failed creates stored tickets: %v", ticketIDs(page.Items))
	}
}

func TestCreateTicketWithRiskAssessment(t *testing.T) {
	c := newClient(t)
	assess := func(body string) string {
		t.Helper()
		var res RiskResult
		c.do("POST", "/risk/check", body).expect(t, http.StatusOK, &res)
		return res.AssessmentID
	}
	deny := assess(`{"order_id":"O-100007","customer_id":"C-3","amount":2499}`)
	other := assess(`{"order_id":"O-100006","customer_id":"C-3","amount":39.8}`)
	review := assess(`{"order_id":"O-100002","customer_id":"C-1","amount":99999}`)
	body := func(order, customer, id string) string {
		return fmt.Sprintf(`{"order_id":%q,"customer_id":%q,"reason":"defect","refund_method":"store_credit","risk_assessment_id":%q}`, order, customer, id)
	}
	c.do("POST", "/tickets", body("O-100007", "C-3", deny)).expectProblem(t, http.StatusUnprocessableEntity, "risk-denied", "customer_id")
	c.do("POST", "/tickets", body("O-100002", "C-1", other)).expectProblem(t, http.StatusUnprocessableEntity, "validation", "risk_assessment_id")
	c.do("POST", "/tickets", body("O-100002", "C-1", "RA-999999")).expectProblem(t, http.StatusUnprocessableEntity, "validation", "risk_assessment_id")
	c.do("POST", "/tickets", body("O-100002", "C-1", "risk-1")).expectProblem(t, http.StatusUnprocessableEntity, "validation", "risk_assessment_id")
	// The given assessment (review) is used, not a fresh one (allow).
	var tk Ticket
	c.do("POST", "/tickets", body("O-100002", "C-1", review)).expect(t, http.StatusCreated, &tk)
	var p TicketProgress
	c.do("GET", "/tickets/"+tk.ID+"/progress", "").expect(t, http.StatusOK, &p)
	if len(p.Events) != 2 || p.Events[1].Stage != "review" || !strings.Contains(p.Events[1].Note, "0.55") {
		t.Fatalf("progress = %+v", p)
	}
}

func TestCreateTicketIdempotency(t *testing.T) {
	c := newClient(t)
	var first, again Ticket
	c.do("POST", "/tickets", newTicketBody, "Idempotency-Key", "key-1").expect(t, http.StatusCreated, &first)
	r := c.do("POST", "/tickets", newTicketBody, "Idempotency-Key", "key-1")
	r.expect(t, http.StatusOK, &again)
	if !reflect.DeepEqual(again, first) || r.header.Get("Location") != "" {
		t.Fatalf("replay = %+v, want %+v", again, first)
	}
	other := strings.Replace(newTicketBody, "crackles", "rattles", 1)
	c.do("POST", "/tickets", other, "Idempotency-Key", "key-1").expectProblem(t, http.StatusConflict, "idempotency-conflict")
	c.do("POST", "/tickets", other, "Idempotency-Key", "key-2").expectProblem(t, http.StatusConflict, "duplicate-ticket")
	c.do("POST", "/tickets", newTicketBody, "Idempotency-Key", "not a key!").expectProblem(t, http.StatusBadRequest, "bad-request")
	c.do("POST", "/tickets", newTicketBody, "Idempotency-Key", "").expectProblem(t, http.StatusBadRequest, "bad-request")

	// The replay still answers after the ticket changed, with its state now.
	c.do("POST", "/tickets/"+first.ID+"/cancel", `{"reason":"Resolved by phone."}`).expect(t, http.StatusOK, nil)
	c.do("POST", "/tickets", newTicketBody, "Idempotency-Key", "key-1").expect(t, http.StatusOK, &again)
	if again.ID != first.ID || again.Status != "cancelled" {
		t.Fatalf("replay after cancel = %+v", again)
	}
}

func TestConcurrentCreates(t *testing.T) {
	c := newClient(t)
	const n = 16
	run := func(key func(int) string) map[int][]string {
		var mu sync.Mutex
		byStatus := map[int][]string{}
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				r, err := c.try("POST", "/tickets", newTicketBody, "Idempotency-Key", key(i))
				if err != nil {
					t.Error(err)
					return
				}
				var tk Ticket
				_ = json.Unmarshal(r.body, &tk)
				mu.Lock()
				byStatus[r.status] = append(byStatus[r.status], tk.ID)
				mu.Unlock()
			})
		}
		wg.Wait()
		return byStatus
	}
	same := run(func(int) string { return "same-key" })
	if len(same[201]) != 1 || len(same[200]) != n-1 || len(same) != 2 {
		t.Fatalf("same key: statuses %v", same)
	}
	for _, id := range same[200] {
		if id != same[201][0] {
			t.Fatalf("replays returned %v, want %s", same[200], same[201][0])
		}
	}
	c.do("POST", "/tickets/"+same[201][0]+"/cancel", `{"reason":"test"}`).expect(t, http.StatusOK, nil)
	distinct := run(func(i int) string { return fmt.Sprintf("key-%d", i) })
	if len(distinct[201]) != 1 || len(distinct[409]) != n-1 || len(distinct) != 2 {
		t.Fatalf("distinct keys: statuses %v", distinct)
	}
}

func TestCancelTicket(t *testing.T) {
	c := newClient(t)
	var tk Ticket
	r := c.do("POST", "/tickets/T-2026-1004/cancel", `{"reason":"Customer found the right laptop in another parcel."}`)
	r.expect(t, http.StatusOK, &tk)
	if tk.Status != "cancelled" || tk.CancelReason == "" || tk.EstimatedCompletion != nil || !tk.UpdatedAt.Equal(testNow) {
		t.Fatalf("cancelled ticket = %+v", tk)
	}
	var p TicketProgress
	c.do("GET", "/tickets/T-2026-1004/progress", "").expect(t, http.StatusOK, &p)
	if last := p.Events[len(p.Events)-1]; len(p.Events) != 3 || last.Stage != "cancelled" || !strings.Contains(last.Note, "another parcel") {
		t.Fatalf("progress = %+v", p)
	}
	var res ValidationResult
	c.do("POST", "/tickets/validate", `{"order_id":"O-100005","reason":"defect"}`).expect(t, http.StatusOK, &res)
	if !res.Valid {
		t.Fatalf("order with a cancelled ticket should validate: %+v", res)
	}
	c.do("POST", "/tickets/T-2026-1004/cancel", `{"reason":"again"}`).expectProblem(t, http.StatusConflict, "ticket-not-open")
	c.do("POST", "/tickets/T-2026-1003/cancel", `{"reason":"too late"}`).expectProblem(t, http.StatusConflict, "ticket-not-open")
	c.do("POST", "/tickets/T-2026-9999/cancel", `{"reason":"x"}`).expectProblem(t, http.StatusNotFound, "not-found")
	c.do("POST", "/tickets/T2026/cancel", `{"reason":"x"}`).expectProblem(t, http.StatusBadRequest, "bad-request")
	c.do("POST", "/tickets/T-2026-1001/cancel", `{}`).expectProblem(t, http.StatusUnprocessableEntity, "validation", "reason")
	c.do("POST", "/tickets/T-2026-1001/cancel", `{"reason":"`+strings.Repeat("x", 501)+`"}`).
		expectProblem(t, http.StatusUnprocessableEntity, "validation", "reason")
	c.do("POST", "/tickets/T-2026-1001/cancel", "").expectProblem(t, http.StatusBadRequest, "bad-request")
	c.do("GET", "/tickets/T-2026-1001", "").expect(t, http.StatusOK, &tk)
	if tk.Status != "repair" {
		t.Fatalf("failed cancels changed the ticket: %+v", tk)
	}
}

func TestEstimateRefund(t *testing.T) {
	c := newClient(t)
	cases := []struct {
		body         string
		amount, fee  float64
		methods      []string
		noteContains string
	}{
		{`{"order_id":"O-100001","reason":"defect"}`, 119.8, 0, []string{"original_payment", "store_credit", "bank_transfer"}, "estimate only"},
		{`{"order_id":"O-100002","reason":"changed_mind"}`, 134.1, 14.9, []string{"original_payment", "store_credit"}, "restocking fee"},
		{`{"order_id":"O-100004","reason":"changed_mind"}`, 35.1, 3.9, []string{"original_payment", "store_credit"}, "final-sale items worth 37.50 EUR"},
	}
	for _, tc := range cases {
		var est RefundEstimate
		c.do("POST", "/refunds/estimate", tc.body).expect(t, http.StatusOK, &est)
		if est.Amount != tc.amount || est.RestockingFee != tc.fee || !slices.Equal(est.MethodOptions, tc.methods) ||
			est.Currency != "EUR" || !strings.Contains(est.Note, tc.noteContains) || !strings.HasPrefix(est.Note, "estimate only") {
			t.Errorf("estimate %s = %+v", tc.body, est)
		}
	}
	c.do("POST", "/refunds/estimate", `{"order_id":"O-999999","reason":"defect"}`).expectProblem(t, http.StatusNotFound, "not-found")
	c.do("POST", "/refunds/estimate", `{"order_id":"O-100001"}`).expectProblem(t, http.StatusUnprocessableEntity, "validation", "reason")
	c.do("POST", "/refunds/estimate", `{"order_id":7,"reason":"defect"}`).expectProblem(t, http.StatusUnprocessableEntity, "validation", "order_id")
	var page TicketPage
	c.do("GET", "/tickets", "").expect(t, http.StatusOK, &page)
	if page.Total != 5 {
		t.Fatalf("estimates created tickets: %v", ticketIDs(page.Items))
	}
}

func TestGetOrder(t *testing.T) {
	c := newClient(t)
	var o Order
	c.do("GET", "/orders/O-100001", "").expect(t, http.StatusOK, &o)
	if o.ID != "O-100001" || o.CustomerID != "C-1" || o.Total != 119.8 || o.Currency != "EUR" || len(o.Items) != 2 ||
		o.Items[0].SKU != "KB-200" || o.Items[0].Price != 89.9 || o.Items[0].Quantity != 1 || o.PlacedAt.IsZero() {
		t.Fatalf("order = %+v", o)
	}
	c.do("GET", "/orders/O-100004", "").expect(t, http.StatusOK, &o)
	if o.Total != 76.5 || !o.Items[0].FinalSale {
		t.Fatalf("order O-100004 = %+v", o)
	}
	c.do("GET", "/orders/O-999999", "").expectProblem(t, http.StatusNotFound, "not-found")
	c.do("GET", "/orders/O-1", "").expectProblem(t, http.StatusBadRequest, "bad-request")
}

func TestUnknownRoutesAnswerProblems(t *testing.T) {
	c := newClient(t)
	c.do("GET", "/nowhere", "").expectProblem(t, http.StatusNotFound, "not-found")
	r := c.do("DELETE", "/tickets/T-2026-1001", "")
	r.expectProblem(t, http.StatusMethodNotAllowed, "method-not-allowed")
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") {
		t.Fatalf("Allow = %q", allow)
	}
}

func TestRequireAPIKey(t *testing.T) {
	c := newClientFor(t, RequireAPIKey(NewHandler(), "s3cret"))
	c.do("GET", "/tickets/T-2026-1001", "").expectProblem(t, http.StatusUnauthorized, "unauthorized")
	r := c.do("GET", "/tickets/T-2026-1001", "", APIKeyHeader, "wrong")
	r.expectProblem(t, http.StatusUnauthorized, "unauthorized")
	if r.header.Get("WWW-Authenticate") == "" {
		t.Fatal("401 without WWW-Authenticate")
	}
	c.do("GET", "/tickets/T-2026-1001", "", APIKeyHeader, "s3cret").expect(t, http.StatusOK, nil)
	open := newClientFor(t, RequireAPIKey(NewHandler(), ""))
	open.do("GET", "/tickets/T-2026-1001", "").expect(t, http.StatusOK, nil)
}

func TestNewHandlerUsesTheClock(t *testing.T) {
	c := newClientFor(t, NewHandler())
	var tk Ticket
	before := time.Now().UTC().Truncate(time.Second)
	c.do("POST", "/tickets", newTicketBody).expect(t, http.StatusCreated, &tk)
	if tk.CreatedAt.Before(before) || !ticketIDRE.MatchString(tk.ID) || !strings.HasPrefix(tk.ID, fmt.Sprintf("T-%04d-", before.Year())) {
		t.Fatalf("ticket = %+v", tk)
	}
}

// TestConcurrentMixedTraffic runs reads and writes in parallel; run with
// -race.
func TestConcurrentMixedTraffic(t *testing.T) {
	c := newClient(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			reqs := []struct{ method, path, body string }{
				{"GET", "/tickets", ""},
				{"GET", "/tickets/T-2026-1001/progress", ""},
				{"POST", "/tickets/validate", `{"order_id":"O-100006","reason":"defect"}`},
				{"POST", "/risk/check", `{"order_id":"O-100006","customer_id":"C-3","amount":10}`},
				{"POST", "/refunds/estimate", `{"order_id":"O-100006","reason":"defect"}`},
				{"POST", "/tickets", `{"order_id":"O-100006","customer_id":"C-3","reason":"defect","refund_method":"store_credit"}`},
				{"POST", "/tickets/T-2026-1002/cancel", fmt.Sprintf(`{"reason":"worker %d"}`, i)},
			}
			for _, rq := range reqs {
				r, err := c.try(rq.method, rq.path, rq.body)
				if err != nil {
					t.Error(err)
				} else if r.status >= 500 {
					t.Errorf("%s %s: %d %s", rq.method, rq.path, r.status, r.body)
				}
			}
		})
	}
	wg.Wait()
	var page TicketPage
	c.do("GET", "/tickets?customer_id=C-3&status=review", "").expect(t, http.StatusOK, &page)
	if page.Total != 2 {
		t.Fatalf("C-3 review tickets = %v, want T-2026-1004 and exactly one new one", ticketIDs(page.Items))
	}
	var tk Ticket
	c.do("GET", "/tickets/T-2026-1002", "").expect(t, http.StatusOK, &tk)
	if tk.Status != "cancelled" {
		t.Fatalf("T-2026-1002 = %+v", tk)
	}
}
