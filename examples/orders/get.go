package main

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
)

// getOrder serves GET /orders/{order_id}: a plain read, not an idempotent
// operation, scoped to the caller's tenant like everything else. Its
// errors are problem+json like the generated handlers': 401 without a
// caller, 404 for an id that names no order of the tenant (a malformed one
// included), 500 only when the database fails.
func getOrder(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool, log *slog.Logger) {
	tenant, err := demoTenant(r)
	if err != nil {
		writeProblem(w, &idem.Rejection{Status: http.StatusUnauthorized, Type: problemUnauthorized, Title: "Unauthorized"})
		return
	}
	order, err := shop.ReadOrder(r.Context(), pool, tenant, r.PathValue("order_id"))
	var rej *idem.Rejection
	switch {
	case errors.As(err, &rej):
		writeProblem(w, rej)
		return
	case err != nil:
		log.Error("GET /orders/{order_id}", "err", err)
		writeProblem(w, &idem.Rejection{Status: http.StatusInternalServerError, Type: idem.ProblemInternal, Title: "Internal error"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(order)
}

// problemUnauthorized is the problem type of a request without a caller.
const problemUnauthorized = "https://github.com/idemgen/idemgen/tree/main/examples/orders#unauthorized"

// writeProblem sends rej as an RFC 9457 application/problem+json answer.
func writeProblem(w http.ResponseWriter, rej *idem.Rejection) {
	body, err := json.Marshal(struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail,omitempty"`
	}{rej.Type, rej.Title, rej.Status, rej.Detail})
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(rej.Status)
	_, _ = w.Write(body)
}
