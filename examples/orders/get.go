package main

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
)

// getOrder serves GET /orders/{order_id}: a plain read, not an idempotent
// operation, scoped to the caller's tenant like everything else.
func getOrder(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool) {
	tenant, err := demoTenant(r)
	if err != nil {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	order, err := shop.ReadOrder(r.Context(), pool, tenant, r.PathValue("order_id"))
	var rej *idem.Rejection
	switch {
	case errors.As(err, &rej):
		http.Error(w, rej.Title, rej.Status)
		return
	case err != nil:
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(order)
}
