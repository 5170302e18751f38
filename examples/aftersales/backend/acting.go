package backend

import (
	"net/http"
)

// ActingCustomerHeader names the customer a request acts for. When a
// request carries it, the API serves that customer's orders and tickets
// only: another customer's order or ticket answers 404, as if it did not
// exist, and lists hold the customer's own tickets. The MCP server sets
// it from the signed-in caller's identity, never from a model's input.
const ActingCustomerHeader = "X-Customer-Id"

// acting is the customer a request acts for, or "" for the service
// itself (no restriction).
func acting(r *http.Request) string { return r.Header.Get(ActingCustomerHeader) }

// ticketFor returns the ticket if the acting customer may see it.
func (s *server) ticketFor(r *http.Request, id string) (Ticket, error) {
	t, ok := s.db.ticket(id)
	if !ok || (acting(r) != "" && t.CustomerID != acting(r)) {
		return Ticket{}, errTicketNotFound(id)
	}
	return t, nil
}

// orderFor returns the order if the acting customer may see it.
func (s *server) orderFor(r *http.Request, id string) (Order, error) {
	o, ok := s.db.order(id)
	if !ok || (acting(r) != "" && o.CustomerID != acting(r)) {
		return Order{}, errOrderNotFound(id)
	}
	return o, nil
}

// actAs checks that a body's customer is the acting customer.
func actAs(r *http.Request, customerID string) error {
	if a := acting(r); a != "" && customerID != a {
		return &Problem{Type: problemType("forbidden"), Title: "Forbidden", Status: http.StatusForbidden,
			Detail: "The request acts for customer " + a + " and cannot act for " + customerID + "."}
	}
	return nil
}
