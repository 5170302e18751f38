package backend

import "time"

// ts parses a seed timestamp.
func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func strp(s string) *string { return &s }

// seedCustomers returns the three customers every new handler starts with;
// C-3 has a history of returns and scores riskier.
func seedCustomers() []customer {
	return []customer{
		{id: "C-1", name: "Ada Lindqvist", riskBase: 0.05},
		{id: "C-2", name: "Ben Okafor", riskBase: 0.1},
		{id: "C-3", name: "Cleo Marchetti", riskBase: 0.45},
	}
}

// seedOrders returns the seven orders every new handler starts with (EUR).
func seedOrders() []Order {
	return []Order{
		{ID: "O-100001", CustomerID: "C-1", Currency: "EUR", PlacedAt: ts("2026-03-02T10:15:00Z"), Items: []OrderItem{
			{SKU: "KB-200", Name: "Mechanical keyboard", Price: 89.90, Quantity: 1},
			{SKU: "MS-310", Name: "Wireless mouse", Price: 29.90, Quantity: 1},
		}},
		{ID: "O-100002", CustomerID: "C-1", Currency: "EUR", PlacedAt: ts("2026-03-20T16:40:00Z"), Items: []OrderItem{
			{SKU: "HP-500", Name: "Noise-cancelling headphones", Price: 149.00, Quantity: 1},
		}},
		{ID: "O-100003", CustomerID: "C-2", Currency: "EUR", PlacedAt: ts("2026-02-11T09:05:00Z"), Items: []OrderItem{
			{SKU: "MN-270", Name: "27-inch monitor", Price: 279.00, Quantity: 1},
		}},
		{ID: "O-100004", CustomerID: "C-2", Currency: "EUR", PlacedAt: ts("2026-03-28T12:00:00Z"), Items: []OrderItem{
			{SKU: "CB-USB-C", Name: "USB-C cable 2 m (clearance)", Price: 12.50, Quantity: 3, FinalSale: true},
			{SKU: "PS-65W", Name: "65 W power supply", Price: 39.00, Quantity: 1},
		}},
		{ID: "O-100005", CustomerID: "C-3", Currency: "EUR", PlacedAt: ts("2026-03-15T18:22:00Z"), Items: []OrderItem{
			{SKU: "LT-1400", Name: "14-inch laptop", Price: 1299.00, Quantity: 1},
		}},
		{ID: "O-100006", CustomerID: "C-3", Currency: "EUR", PlacedAt: ts("2026-04-01T08:30:00Z"), Items: []OrderItem{
			{SKU: "PH-12", Name: "Phone case", Price: 19.90, Quantity: 2},
		}},
		{ID: "O-100007", CustomerID: "C-3", Currency: "EUR", PlacedAt: ts("2026-04-05T20:10:00Z"), Items: []OrderItem{
			{SKU: "LT-1600", Name: "16-inch laptop", Price: 2499.00, Quantity: 1},
		}},
	}
}

// seedTickets returns the five tickets every new handler starts with, with
// their progress trails: T-2026-1001 repair, 1002 refund, 1003 closed,
// 1004 review, 1005 cancelled. Orders O-100001, O-100003 and O-100005
// have an open ticket.
func seedTickets() []ticketRec {
	return []ticketRec{
		{ticket: Ticket{ID: "T-2026-1001", Status: "repair", OrderID: "O-100001", CustomerID: "C-1", Reason: "defect",
			Description: "Several keys stopped working after a week.", RefundMethod: "original_payment",
			CreatedAt: ts("2026-03-10T09:00:00Z"), UpdatedAt: ts("2026-03-14T11:30:00Z"), EstimatedCompletion: strp("2026-03-28")},
			events: []ProgressEvent{
				{At: ts("2026-03-10T09:00:00Z"), Stage: "received", Note: "Ticket opened by the customer."},
				{At: ts("2026-03-11T14:20:00Z"), Stage: "review", Note: "Parcel received at the returns centre; inspection started."},
				{At: ts("2026-03-14T11:30:00Z"), Stage: "repair", Note: "Defect confirmed; keyboard sent to the repair partner."},
			}},
		{ticket: Ticket{ID: "T-2026-1002", Status: "refund", OrderID: "O-100003", CustomerID: "C-2", Reason: "not_as_described",
			Description: "Monitor is 60 Hz, the listing said 144 Hz.", RefundMethod: "bank_transfer",
			CreatedAt: ts("2026-02-20T08:10:00Z"), UpdatedAt: ts("2026-02-26T10:00:00Z"), EstimatedCompletion: strp("2026-03-05")},
			events: []ProgressEvent{
				{At: ts("2026-02-20T08:10:00Z"), Stage: "received", Note: "Ticket opened by the customer."},
				{At: ts("2026-02-23T09:45:00Z"), Stage: "review", Note: "Return approved: listing error confirmed."},
				{At: ts("2026-02-26T10:00:00Z"), Stage: "refund", Note: "Refund of 279.00 EUR initiated by bank transfer."},
			}},
		{ticket: Ticket{ID: "T-2026-1003", Status: "closed", OrderID: "O-100002", CustomerID: "C-1", Reason: "changed_mind",
			RefundMethod: "store_credit",
			CreatedAt:    ts("2026-03-21T19:00:00Z"), UpdatedAt: ts("2026-03-27T15:00:00Z")},
			events: []ProgressEvent{
				{At: ts("2026-03-21T19:00:00Z"), Stage: "received", Note: "Ticket opened by the customer."},
				{At: ts("2026-03-24T10:00:00Z"), Stage: "review", Note: "Parcel received unopened."},
				{At: ts("2026-03-25T12:00:00Z"), Stage: "refund", Note: "Store credit of 134.10 EUR issued (10% restocking fee)."},
				{At: ts("2026-03-27T15:00:00Z"), Stage: "closed", Note: "Ticket closed."},
			}},
		{ticket: Ticket{ID: "T-2026-1004", Status: "review", OrderID: "O-100005", CustomerID: "C-3", Reason: "wrong_item",
			Description: "Received the 16-inch model instead of the 14-inch.", RefundMethod: "original_payment",
			CreatedAt: ts("2026-03-18T13:00:00Z"), UpdatedAt: ts("2026-03-19T09:00:00Z"), EstimatedCompletion: strp("2026-03-25")},
			events: []ProgressEvent{
				{At: ts("2026-03-18T13:00:00Z"), Stage: "received", Note: "Ticket opened by the customer."},
				{At: ts("2026-03-19T09:00:00Z"), Stage: "review", Note: "Waiting for the parcel to arrive at the returns centre."},
			}},
		{ticket: Ticket{ID: "T-2026-1005", Status: "cancelled", OrderID: "O-100006", CustomerID: "C-3", Reason: "changed_mind",
			RefundMethod: "store_credit", CancelReason: "Customer decided to keep the cases.",
			CreatedAt: ts("2026-04-02T10:00:00Z"), UpdatedAt: ts("2026-04-02T17:00:00Z")},
			events: []ProgressEvent{
				{At: ts("2026-04-02T10:00:00Z"), Stage: "received", Note: "Ticket opened by the customer."},
				{At: ts("2026-04-02T17:00:00Z"), Stage: "cancelled", Note: "Cancelled: Customer decided to keep the cases."},
			}},
	}
}

// newMemDB returns a freshly seeded store using now as its clock.
func newMemDB(now func() time.Time) *memDB {
	db := &memDB{
		now:            now,
		customers:      map[string]customer{},
		orders:         map[string]Order{},
		tickets:        map[string]*ticketRec{},
		idem:           map[string]idemEntry{},
		assessments:    map[string]assessment{},
		nextSeq:        1006,
		nextAssessment: 1,
	}
	for _, c := range seedCustomers() {
		db.customers[c.id] = c
	}
	for _, o := range seedOrders() {
		var total int64
		for _, it := range o.Items {
			total += cents(it.Price) * int64(it.Quantity)
		}
		o.Total = amount(total)
		db.orders[o.ID] = o
	}
	for _, rec := range seedTickets() {
		db.tickets[rec.ticket.ID] = &rec
	}
	return db
}
