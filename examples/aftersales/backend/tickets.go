package backend

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// NewTicket is the NewTicket schema, the body of createTicket.
type NewTicket struct {
	OrderID      string `json:"order_id"`
	CustomerID   string `json:"customer_id"`
	Reason       string `json:"reason"`
	Description  string `json:"description,omitempty"`
	RefundMethod string `json:"refund_method"`
	// RiskAssessmentID refers to an earlier riskCheck; optional.
	RiskAssessmentID string `json:"risk_assessment_id,omitempty"`
}

// CancelRequest is the CancelRequest schema, the body of cancelTicket.
type CancelRequest struct {
	Reason string `json:"reason"`
}

func (nt NewTicket) check() error {
	var c checker
	c.match("order_id", nt.OrderID, orderIDRE, "O-100001", true)
	c.match("customer_id", nt.CustomerID, customerIDRE, "C-1", true)
	c.oneOf("reason", nt.Reason, returnReasons, true)
	c.oneOf("refund_method", nt.RefundMethod, refundMethods, true)
	c.maxLen("description", nt.Description, 2000)
	c.match("risk_assessment_id", nt.RiskAssessmentID, assessmentIDRE, "RA-000001", false)
	return c.err()
}

func errTicketNotFound(id string) error {
	return notFound(fmt.Sprintf("Ticket %s does not exist; check the ticket number with the customer.", id))
}

func errOrderNotFound(id string) error {
	return notFound(fmt.Sprintf("Order %s does not exist; check the order number with the customer.", id))
}

// getTicket implements GET /tickets/{ticketId}.
func (s *server) getTicket(w http.ResponseWriter, r *http.Request) {
	id, err := pathTicketID(r)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	t, err := s.ticketFor(r, id)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// getTicketProgress implements GET /tickets/{ticketId}/progress.
func (s *server) getTicketProgress(w http.ResponseWriter, r *http.Request) {
	id, err := pathTicketID(r)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	if _, err := s.ticketFor(r, id); err != nil {
		writeErr(w, r, err)
		return
	}
	p, ok := s.db.progress(id)
	if !ok {
		writeErr(w, r, errTicketNotFound(id))
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// listTickets implements GET /tickets.
func (s *server) listTickets(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	customerID, status := q.Get("customer_id"), q.Get("status")
	if a := acting(r); a != "" {
		if customerID != "" && customerID != a {
			writeErr(w, r, actAs(r, customerID))
			return
		}
		customerID = a
	}
	var c checker
	c.match("customer_id", customerID, customerIDRE, "C-1", false)
	c.oneOf("status", status, ticketStatus, false)
	if len(c.errs) > 0 {
		writeErr(w, r, badRequest("Invalid query parameter "+c.errs[0].Field+": "+c.errs[0].Message+"."))
		return
	}
	limit, err := queryInt(r, "limit", 20, 1, 100)
	if err == nil {
		var offset int
		if offset, err = queryInt(r, "offset", 0, 0, 1<<30); err == nil {
			writeJSON(w, http.StatusOK, s.db.list(customerID, status, limit, offset))
			return
		}
	}
	writeErr(w, r, err)
}

// createTicket implements POST /tickets.
func (s *server) createTicket(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if _, present := r.Header["Idempotency-Key"]; present && !idemKeyRE.MatchString(key) {
		writeErr(w, r, badRequest("Idempotency-Key must be 1-64 letters, digits, '-' or '_', e.g. a UUID."))
		return
	}
	var nt NewTicket
	err := decodeJSON(w, r, &nt)
	if err == nil {
		err = nt.check()
	}
	if err == nil {
		err = actAs(r, nt.CustomerID)
	}
	if err == nil {
		_, err = s.orderFor(r, nt.OrderID)
	}
	if err != nil {
		writeErr(w, r, err)
		return
	}
	t, created, err := s.db.create(nt, key)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", BasePath+"/tickets/"+t.ID)
	}
	writeJSON(w, status, t)
}

// create opens a ticket, or returns the one an earlier request with the
// same idempotency key created (created is then false).
func (db *memDB) create(nt NewTicket, key string) (t Ticket, created bool, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	fp, _ := json.Marshal(nt)
	if key != "" {
		if e, ok := db.idem[key]; ok {
			if e.fingerprint != string(fp) {
				return Ticket{}, false, conflict("idempotency-conflict", "Idempotency-Key reused",
					fmt.Sprintf("Idempotency-Key %q was already used for a different request (ticket %s); use a new key for a new request.", key, e.ticketID))
			}
			return db.tickets[e.ticketID].ticket, false, nil
		}
	}
	o, ok := db.orders[nt.OrderID]
	if !ok {
		return Ticket{}, false, errOrderNotFound(nt.OrderID)
	}
	if o.CustomerID != nt.CustomerID {
		return Ticket{}, false, unprocessable("validation", FieldError{Field: "customer_id",
			Message: fmt.Sprintf("order %s does not belong to customer %s", o.ID, nt.CustomerID)})
	}
	if open, ok := db.openTicketFor(o.ID); ok {
		return Ticket{}, false, conflict("duplicate-ticket", "Open ticket exists",
			fmt.Sprintf("Order %s already has open ticket %s (status %s); look that ticket up or cancel it instead of opening another.",
				o.ID, open, db.tickets[open].ticket.Status))
	}
	var c checker
	if nt.Reason == "changed_mind" {
		for _, it := range o.Items {
			if it.FinalSale {
				c.add("reason", "order %s contains final-sale item %s, which cannot be returned for changed_mind", o.ID, it.SKU)
				break
			}
		}
		if nt.RefundMethod == "bank_transfer" {
			c.add("refund_method", "bank_transfer is not offered for changed_mind returns; use original_payment or store_credit")
		}
	}
	if err := c.err(); err != nil {
		return Ticket{}, false, err
	}
	risk := db.risk(o, nt.CustomerID, o.Total)
	if id := nt.RiskAssessmentID; id != "" {
		a, ok := db.assessments[id]
		switch {
		case !ok:
			c.add("risk_assessment_id", "assessment %s does not exist; run the risk check again or omit it", id)
		case a.orderID != o.ID || a.customerID != nt.CustomerID:
			c.add("risk_assessment_id", "assessment %s was made for order %s and customer %s, not this request", id, a.orderID, a.customerID)
		}
		if err := c.err(); err != nil {
			return Ticket{}, false, err
		}
		risk = a.result
	}
	if risk.Decision == "deny" {
		p := unprocessable("risk-denied", FieldError{Field: "customer_id",
			Message: fmt.Sprintf("the refund risk check denies this request (score %.2f); a human agent must handle it", risk.Score)})
		p.Title = "Refund risk too high"
		return Ticket{}, false, p
	}

	now := db.clock()
	days := 7
	if nt.Reason == "defect" {
		days = 14
	}
	events := []ProgressEvent{{At: now, Stage: "received", Note: "Ticket opened by the customer."}}
	if risk.Decision == "review" {
		days += 3
		events = append(events, ProgressEvent{At: now, Stage: "review",
			Note: fmt.Sprintf("Flagged for manual review by the risk check (score %.2f).", risk.Score)})
	}
	t = Ticket{
		ID:     fmt.Sprintf("T-%04d-%04d", now.Year()%10000, db.nextSeq%10000),
		Status: "review", OrderID: o.ID, CustomerID: nt.CustomerID, Reason: nt.Reason,
		Description: nt.Description, RefundMethod: nt.RefundMethod,
		CreatedAt: now, UpdatedAt: now, EstimatedCompletion: date(now.AddDate(0, 0, days)),
	}
	db.nextSeq++
	db.tickets[t.ID] = &ticketRec{ticket: t, events: events}
	if key != "" {
		db.idem[key] = idemEntry{fingerprint: string(fp), ticketID: t.ID}
	}
	return t, true, nil
}

// cancelTicket implements POST /tickets/{ticketId}/cancel.
func (s *server) cancelTicket(w http.ResponseWriter, r *http.Request) {
	id, err := pathTicketID(r)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	var req CancelRequest
	if err = decodeJSON(w, r, &req); err == nil {
		var c checker
		if req.Reason == "" {
			c.add("reason", "is required: say briefly why the ticket is cancelled")
		}
		c.maxLen("reason", req.Reason, 500)
		err = c.err()
	}
	if err == nil {
		_, err = s.ticketFor(r, id)
	}
	if err != nil {
		writeErr(w, r, err)
		return
	}
	t, err := s.db.cancel(id, req.Reason)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// cancel moves an open ticket to cancelled.
func (db *memDB) cancel(id, reason string) (Ticket, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	rec, ok := db.tickets[id]
	if !ok {
		return Ticket{}, errTicketNotFound(id)
	}
	if !isOpen(rec.ticket.Status) {
		return Ticket{}, conflict("ticket-not-open", "Ticket is not open",
			fmt.Sprintf("Ticket %s is already %s and cannot be cancelled.", id, rec.ticket.Status))
	}
	now := db.clock()
	rec.ticket.Status = "cancelled"
	rec.ticket.CancelReason = reason
	rec.ticket.EstimatedCompletion = nil
	rec.ticket.UpdatedAt = now
	rec.events = append(rec.events, ProgressEvent{At: now, Stage: "cancelled", Note: "Cancelled: " + reason})
	return rec.ticket, nil
}
