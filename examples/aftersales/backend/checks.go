package backend

import (
	"fmt"
	"net/http"
)

// ReturnItem is the ReturnItem schema.
type ReturnItem struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

// ValidationRequest is the ValidationRequest schema, the body of validateTicket.
type ValidationRequest struct {
	OrderID string       `json:"order_id"`
	Reason  string       `json:"reason"`
	Items   []ReturnItem `json:"items,omitempty"`
}

// ValidationProblem is the ValidationProblem schema.
type ValidationProblem struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// ValidationResult is the ValidationResult schema.
type ValidationResult struct {
	Valid            bool                `json:"valid"`
	OrderID          string              `json:"order_id"`
	CustomerID       string              `json:"customer_id,omitempty"`
	RefundableAmount float64             `json:"refundable_amount"`
	Currency         string              `json:"currency"`
	Problems         []ValidationProblem `json:"problems"`
}

// RiskRequest is the RiskRequest schema, the body of riskCheck.
type RiskRequest struct {
	OrderID    string   `json:"order_id"`
	CustomerID string   `json:"customer_id"`
	Amount     *float64 `json:"amount"`
}

// EstimateRequest is the EstimateRequest schema, the body of estimateRefund.
type EstimateRequest struct {
	OrderID string `json:"order_id"`
	Reason  string `json:"reason"`
}

// RefundEstimate is the RefundEstimate schema.
type RefundEstimate struct {
	OrderID       string   `json:"order_id"`
	Amount        float64  `json:"amount"`
	RestockingFee float64  `json:"restocking_fee"`
	Currency      string   `json:"currency"`
	MethodOptions []string `json:"method_options"`
	Note          string   `json:"note"`
}

// restockingPercent is the fee on changed-mind returns.
const restockingPercent = 10

func (v ValidationRequest) check() error {
	var c checker
	c.match("order_id", v.OrderID, orderIDRE, "O-100001", true)
	c.oneOf("reason", v.Reason, returnReasons, true)
	if len(v.Items) > 50 {
		c.add("items", "has %d entries; at most 50 are allowed", len(v.Items))
	}
	for i, it := range v.Items {
		c.match(fmt.Sprintf("items[%d].sku", i), it.SKU, skuRE, "KB-200", true)
		if it.Quantity < 1 || it.Quantity > 99 {
			c.add(fmt.Sprintf("items[%d].quantity", i), "must be an integer from 1 to 99, got %d", it.Quantity)
		}
	}
	return c.err()
}

// validateTicket implements POST /tickets/validate.
func (s *server) validateTicket(w http.ResponseWriter, r *http.Request) {
	var req ValidationRequest
	err := decodeJSON(w, r, &req)
	if err == nil {
		err = req.check()
	}
	if err == nil && acting(r) != "" {
		_, err = s.orderFor(r, req.OrderID)
	}
	if err != nil {
		writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.db.assess(req))
}

// assess applies the business rules of a ticket request without creating
// anything.
func (db *memDB) assess(req ValidationRequest) ValidationResult {
	db.mu.Lock()
	defer db.mu.Unlock()
	res := ValidationResult{OrderID: req.OrderID, Currency: "EUR", Problems: []ValidationProblem{}}
	add := func(code, field, format string, args ...any) {
		res.Problems = append(res.Problems, ValidationProblem{Code: code, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	o, ok := db.orders[req.OrderID]
	if !ok {
		add("order_not_found", "order_id", "order %s does not exist", req.OrderID)
		return res
	}
	res.CustomerID, res.Currency = o.CustomerID, o.Currency
	if open, ok := db.openTicketFor(o.ID); ok {
		add("open_ticket_exists", "order_id", "order %s already has open ticket %s", o.ID, open)
	}
	var total int64
	if len(req.Items) == 0 {
		for _, it := range o.Items {
			total += cents(it.Price) * int64(it.Quantity)
			if it.FinalSale && req.Reason == "changed_mind" {
				add("final_sale", "reason", "item %s is final sale and cannot be returned for changed_mind", it.SKU)
			}
		}
	}
	for i, want := range req.Items {
		var line *OrderItem
		for j := range o.Items {
			if o.Items[j].SKU == want.SKU {
				line = &o.Items[j]
			}
		}
		switch {
		case line == nil:
			add("item_not_in_order", fmt.Sprintf("items[%d].sku", i), "order %s has no item %s", o.ID, want.SKU)
			continue
		case want.Quantity > line.Quantity:
			add("quantity_exceeds_order", fmt.Sprintf("items[%d].quantity", i), "order %s has only %d of %s", o.ID, line.Quantity, want.SKU)
			continue
		case line.FinalSale && req.Reason == "changed_mind":
			add("final_sale", fmt.Sprintf("items[%d].sku", i), "item %s is final sale and cannot be returned for changed_mind", want.SKU)
		}
		total += cents(line.Price) * int64(want.Quantity)
	}
	res.RefundableAmount = amount(total)
	res.Valid = len(res.Problems) == 0
	return res
}

// riskCheck implements POST /risk/check.
func (s *server) riskCheck(w http.ResponseWriter, r *http.Request) {
	var req RiskRequest
	err := decodeJSON(w, r, &req)
	if err == nil {
		var c checker
		c.match("order_id", req.OrderID, orderIDRE, "O-100001", true)
		c.match("customer_id", req.CustomerID, customerIDRE, "C-1", true)
		switch {
		case req.Amount == nil:
			c.add("amount", "is required, e.g. 119.80")
		case *req.Amount < 0 || *req.Amount > 100000:
			c.add("amount", "must be from 0 to 100000, got %v", *req.Amount)
		}
		err = c.err()
	}
	if err == nil {
		err = actAs(r, req.CustomerID)
	}
	if err == nil && acting(r) != "" {
		_, err = s.orderFor(r, req.OrderID)
	}
	if err != nil {
		writeErr(w, r, err)
		return
	}
	res, ok := s.db.riskCheck(req.OrderID, req.CustomerID, *req.Amount)
	if !ok {
		writeErr(w, r, errOrderNotFound(req.OrderID))
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// estimateRefund implements POST /refunds/estimate.
func (s *server) estimateRefund(w http.ResponseWriter, r *http.Request) {
	var req EstimateRequest
	err := decodeJSON(w, r, &req)
	if err == nil {
		var c checker
		c.match("order_id", req.OrderID, orderIDRE, "O-100001", true)
		c.oneOf("reason", req.Reason, returnReasons, true)
		err = c.err()
	}
	if err != nil {
		writeErr(w, r, err)
		return
	}
	o, err := s.orderFor(r, req.OrderID)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, estimate(o, req.Reason))
}

// estimate computes a refund estimate: the whole order, minus final-sale
// items and a restocking fee for changed_mind.
func estimate(o Order, reason string) RefundEstimate {
	est := RefundEstimate{OrderID: o.ID, Currency: o.Currency,
		MethodOptions: []string{"original_payment", "store_credit", "bank_transfer"},
		Note:          "estimate only: no refund and no ticket have been created; the final amount is set when the returned items are inspected"}
	var total, excluded int64
	for _, it := range o.Items {
		line := cents(it.Price) * int64(it.Quantity)
		if it.FinalSale && reason == "changed_mind" {
			excluded += line
			continue
		}
		total += line
	}
	var fee int64
	if reason == "changed_mind" {
		fee = (total*restockingPercent + 50) / 100
		est.MethodOptions = []string{"original_payment", "store_credit"}
		est.Note += fmt.Sprintf("; includes a %d%% restocking fee", restockingPercent)
		if excluded > 0 {
			est.Note += fmt.Sprintf("; final-sale items worth %.2f %s are not refundable", amount(excluded), o.Currency)
		}
	}
	est.Amount, est.RestockingFee = amount(total-fee), amount(fee)
	return est
}

// getOrder implements GET /orders/{orderId}.
func (s *server) getOrder(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("orderId")
	if !orderIDRE.MatchString(id) {
		writeErr(w, r, badRequest(fmt.Sprintf("Order number %q does not match O-NNNNNN, e.g. O-100001.", id)))
		return
	}
	o, err := s.orderFor(r, id)
	if err != nil {
		writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}
