package backend

import (
	"net/http"
	"slices"
	"time"
)

// orderStatuses is the Order.status enum.
var orderStatuses = []string{"placed", "approved", "delivered"}

var errOrderNotFound = errorf(http.StatusNotFound, "Order not found")

// orderFromForm decodes a form-encoded Order.
func orderFromForm(f *formValues) (Order, error) {
	o := Order{
		ID:       f.int("id", 64),
		PetID:    f.int("petId", 64),
		Quantity: int32(f.int("quantity", 32)),
		ShipDate: f.str("shipDate"),
		Status:   f.str("status"),
		Complete: f.bool("complete"),
	}
	return o, f.err
}

// validateOrder applies defaults (status "placed", shipDate now) and checks
// the enum, quantity and date format, answering 422 on failure.
func validateOrder(o *Order) error {
	if o.Status == "" {
		o.Status = "placed"
	}
	if o.ShipDate == "" {
		o.ShipDate = time.Now().UTC().Format(time.RFC3339)
	}
	switch {
	case !slices.Contains(orderStatuses, o.Status):
		return errorf(http.StatusUnprocessableEntity, "Validation exception: status must be one of placed, approved, delivered")
	case o.Quantity < 0:
		return errorf(http.StatusUnprocessableEntity, "Validation exception: quantity must not be negative")
	}
	if _, err := time.Parse(time.RFC3339, o.ShipDate); err != nil {
		return errorf(http.StatusUnprocessableEntity, "Validation exception: shipDate must be an RFC 3339 date-time")
	}
	return nil
}

// getInventory implements GET /store/inventory: a map of pet status to count.
func (s *server) getInventory(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.db.inventory())
}

// placeOrder implements POST /store/order.
func (s *server) placeOrder(w http.ResponseWriter, r *http.Request) {
	o, err := decodeBody(w, r, orderFromForm)
	if err == nil {
		err = validateOrder(&o)
	}
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.db.addOrder(o))
}

// getOrderByID implements GET /store/order/{orderId}.
func (s *server) getOrderByID(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "orderId")
	if err != nil {
		writeErr(w, err)
		return
	}
	o, ok := s.db.order(id)
	if !ok {
		writeErr(w, errOrderNotFound)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// deleteOrder implements DELETE /store/order/{orderId}.
func (s *server) deleteOrder(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "orderId")
	if err != nil {
		writeErr(w, err)
		return
	}
	if !s.db.deleteOrder(id) {
		writeErr(w, errOrderNotFound)
		return
	}
	writeAck(w, "Order deleted")
}
