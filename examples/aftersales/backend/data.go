package backend

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"
)

// Ticket is the Ticket schema.
type Ticket struct {
	ID           string    `json:"id"`
	Status       string    `json:"status"`
	OrderID      string    `json:"order_id"`
	CustomerID   string    `json:"customer_id"`
	Reason       string    `json:"reason"`
	Description  string    `json:"description,omitempty"`
	RefundMethod string    `json:"refund_method,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// EstimatedCompletion is a date (YYYY-MM-DD), null once the ticket is
	// closed or cancelled.
	EstimatedCompletion *string `json:"estimated_completion"`
	CancelReason        string  `json:"cancel_reason,omitempty"`
}

// TicketSummary is the TicketSummary schema, one item of a TicketPage.
type TicketSummary struct {
	ID                  string    `json:"id"`
	Status              string    `json:"status"`
	OrderID             string    `json:"order_id"`
	CustomerID          string    `json:"customer_id"`
	Reason              string    `json:"reason"`
	CreatedAt           time.Time `json:"created_at"`
	EstimatedCompletion *string   `json:"estimated_completion"`
}

// TicketPage is the TicketPage schema.
type TicketPage struct {
	Items  []TicketSummary `json:"items"`
	Total  int             `json:"total"`
	Limit  int             `json:"limit"`
	Offset int             `json:"offset"`
}

// ProgressEvent is the ProgressEvent schema.
type ProgressEvent struct {
	At    time.Time `json:"at"`
	Stage string    `json:"stage"`
	Note  string    `json:"note"`
}

// TicketProgress is the TicketProgress schema.
type TicketProgress struct {
	TicketID string          `json:"ticket_id"`
	Events   []ProgressEvent `json:"events"`
}

// OrderItem is the OrderItem schema.
type OrderItem struct {
	SKU       string  `json:"sku"`
	Name      string  `json:"name"`
	Price     float64 `json:"price"`
	Quantity  int     `json:"quantity"`
	FinalSale bool    `json:"final_sale,omitempty"`
}

// Order is the Order schema.
type Order struct {
	ID         string      `json:"id"`
	CustomerID string      `json:"customer_id"`
	Items      []OrderItem `json:"items"`
	Total      float64     `json:"total"`
	Currency   string      `json:"currency"`
	PlacedAt   time.Time   `json:"placed_at"`
}

// customer is a seeded customer; riskBase is the starting risk score.
type customer struct {
	id       string
	name     string
	riskBase float64
}

// ticketRec is a stored ticket with its progress trail.
type ticketRec struct {
	ticket Ticket
	events []ProgressEvent
}

// idemEntry remembers what an Idempotency-Key created.
type idemEntry struct {
	fingerprint string
	ticketID    string
}

// assessment is a stored risk check result.
type assessment struct {
	orderID, customerID string
	result              RiskResult
}

// memDB is the in-memory data store; every method takes the mutex.
type memDB struct {
	mu             sync.Mutex
	now            func() time.Time
	customers      map[string]customer
	orders         map[string]Order
	tickets        map[string]*ticketRec
	idem           map[string]idemEntry
	assessments    map[string]assessment
	nextSeq        int
	nextAssessment int
}

// isOpen reports whether a ticket status still blocks a new ticket.
func isOpen(status string) bool {
	return status == "review" || status == "repair" || status == "refund"
}

// cents converts an amount to whole cents.
func cents(v float64) int64 { return int64(math.Round(v * 100)) }

// amount converts cents to an amount.
func amount(c int64) float64 { return float64(c) / 100 }

// date formats t as a YYYY-MM-DD pointer for estimated_completion.
func date(t time.Time) *string {
	s := t.UTC().Format(time.DateOnly)
	return &s
}

func (t Ticket) summary() TicketSummary {
	return TicketSummary{ID: t.ID, Status: t.Status, OrderID: t.OrderID, CustomerID: t.CustomerID,
		Reason: t.Reason, CreatedAt: t.CreatedAt, EstimatedCompletion: t.EstimatedCompletion}
}

// clock returns the current time, truncated to seconds, in UTC.
func (db *memDB) clock() time.Time { return db.now().UTC().Truncate(time.Second) }

func (db *memDB) order(id string) (Order, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	o, ok := db.orders[id]
	o.Items = slices.Clone(o.Items)
	return o, ok
}

func (db *memDB) ticket(id string) (Ticket, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	rec, ok := db.tickets[id]
	if !ok {
		return Ticket{}, false
	}
	return rec.ticket, true
}

func (db *memDB) progress(id string) (TicketProgress, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	rec, ok := db.tickets[id]
	if !ok {
		return TicketProgress{}, false
	}
	return TicketProgress{TicketID: id, Events: slices.Clone(rec.events)}, true
}

// list returns a page of tickets matching the filters, newest number first.
func (db *memDB) list(customerID, status string, limit, offset int) TicketPage {
	db.mu.Lock()
	defer db.mu.Unlock()
	var all []TicketSummary
	for _, rec := range db.tickets {
		t := rec.ticket
		if (customerID == "" || t.CustomerID == customerID) && (status == "" || t.Status == status) {
			all = append(all, t.summary())
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID > all[j].ID })
	page := TicketPage{Items: []TicketSummary{}, Total: len(all), Limit: limit, Offset: offset}
	if offset < len(all) {
		page.Items = append(page.Items, all[offset:min(offset+limit, len(all))]...)
	}
	return page
}

// openTicketFor returns the open ticket of an order, if any; mu is held.
func (db *memDB) openTicketFor(orderID string) (string, bool) {
	for id, rec := range db.tickets {
		if rec.ticket.OrderID == orderID && isOpen(rec.ticket.Status) {
			return id, true
		}
	}
	return "", false
}

// RiskResult is the RiskResult schema.
type RiskResult struct {
	AssessmentID string   `json:"assessment_id,omitempty"`
	Score        float64  `json:"score"`
	Decision     string   `json:"decision"`
	Reasons      []string `json:"reasons"`
}

// risk scores a refund; mu is held. The score is the customer's base
// score, plus up to 0.4 for the amount (0.1 per 500), plus 0.5 when the
// customer does not own the order, plus 0.1 per other open ticket of the
// customer; it is capped at 1. Below 0.4 allows, below 0.7 reviews, the
// rest denies.
func (db *memDB) risk(o Order, customerID string, amt float64) RiskResult {
	res := RiskResult{Reasons: []string{}}
	score := 0.2
	if c, ok := db.customers[customerID]; ok {
		score = c.riskBase
		if c.riskBase >= 0.3 {
			res.Reasons = append(res.Reasons, "customer has a history of returns")
		}
	} else {
		res.Reasons = append(res.Reasons, "unknown customer")
	}
	score += min(amt/500*0.1, 0.4)
	if amt >= 1000 {
		res.Reasons = append(res.Reasons, "high amount")
	}
	if o.CustomerID != customerID {
		score += 0.5
		res.Reasons = append(res.Reasons, "order belongs to another customer")
	}
	open := 0
	for _, rec := range db.tickets {
		if rec.ticket.CustomerID == customerID && rec.ticket.OrderID != o.ID && isOpen(rec.ticket.Status) {
			open++
		}
	}
	if open > 0 {
		score += 0.1 * float64(open)
		res.Reasons = append(res.Reasons, fmt.Sprintf("%d other open ticket(s)", open))
	}
	res.Score = math.Round(min(score, 1)*100) / 100
	switch {
	case res.Score < 0.4:
		res.Decision = "allow"
	case res.Score < 0.7:
		res.Decision = "review"
	default:
		res.Decision = "deny"
	}
	return res
}

// riskCheck scores a refund and stores the assessment for createTicket.
func (db *memDB) riskCheck(orderID, customerID string, amt float64) (RiskResult, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	o, ok := db.orders[orderID]
	if !ok {
		return RiskResult{}, false
	}
	res := db.risk(o, customerID, amt)
	res.AssessmentID = fmt.Sprintf("RA-%06d", db.nextAssessment%1000000)
	db.nextAssessment++
	db.assessments[res.AssessmentID] = assessment{orderID: orderID, customerID: customerID, result: res}
	return res, true
}
