package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// schema is the bank's own tables: the charges it decided, one per key,
// and every request it received.
const schema = `
SELECT pg_advisory_lock(4242);
CREATE TABLE IF NOT EXISTS bank_decisions (
    idempotency_key text PRIMARY KEY,
    charge_id       bigserial,
    amount          bigint NOT NULL,
    status          text NOT NULL,
    decided_at      timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS bank_charges (
    id              bigserial PRIMARY KEY,
    idempotency_key text NOT NULL,
    amount          bigint NOT NULL,
    duplicate       boolean NOT NULL,
    acted           boolean NOT NULL,
    received_at     timestamptz NOT NULL DEFAULT now()
);
SELECT pg_advisory_unlock(4242);`

// behaviour is how the next charges are answered (PUT /behaviour).
type behaviour struct {
	Mode    string `json:"mode"`     // normal, slow, fail, lost or late
	DelayMS int    `json:"delay_ms"` // for slow and late
	Count   int    `json:"count"`    // how many charges; 0 is every one
}

type bank struct {
	pool *pgxpool.Pool
	// settles: an approved charge that names its payment enqueues its
	// settlement (a webhook sender or a JetStream publisher runs).
	settles bool
	mu      sync.Mutex
	next    behaviour
}

// newBank creates the bank's tables in pool; with settles, approved
// charges enqueue their settlement webhooks.
func newBank(ctx context.Context, pool *pgxpool.Pool, settles bool) (*bank, error) {
	for _, sql := range []string{schema, webhookSchema} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			return nil, fmt.Errorf("bank schema: %w", err)
		}
	}
	return &bank{pool: pool, settles: settles, next: behaviour{Mode: "normal"}}, nil
}

func (b *bank) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /charges", b.charge)
	mux.HandleFunc("GET /charges/{key}", b.lookup)
	mux.HandleFunc("PUT /behaviour", b.setBehaviour)
	return mux
}

// take returns how to answer this charge.
func (b *bank) take() behaviour {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.next
	if b.next.Count > 0 {
		if b.next.Count--; b.next.Count == 0 {
			b.next = behaviour{Mode: "normal"}
		}
	}
	return now
}

func (b *bank) setBehaviour(w http.ResponseWriter, r *http.Request) {
	var next behaviour
	if err := json.NewDecoder(r.Body).Decode(&next); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch next.Mode {
	case "normal", "slow", "fail", "lost", "late":
	default:
		http.Error(w, "mode: want normal, slow, fail, lost or late", http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	b.next = next
	b.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// chargeRequest is what POST /charges takes.
type chargeRequest struct {
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	CardToken string `json:"card_token"`
	// Reference is the merchant's payment id, which the settlement
	// webhook names; 0 for none (no webhook).
	Reference int64 `json:"reference"`
}

// decision is a charge's answer.
type decision struct {
	ChargeID int64  `json:"charge_id"`
	Status   string `json:"status"`
}

func (b *bank) charge(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var req chargeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || key == "" || req.Amount <= 0 {
		http.Error(w, "want an Idempotency-Key and a positive amount", http.StatusBadRequest)
		return
	}
	how := b.take()
	if how.Mode == "fail" {
		if _, err := b.pool.Exec(context.WithoutCancel(r.Context()), `INSERT INTO bank_charges (idempotency_key, amount, duplicate, acted)
VALUES ($1, $2, false, false)`, key, req.Amount); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.Error(w, "the bank is unavailable; nothing was charged", http.StatusServiceUnavailable)
		return
	}
	if how.Mode == "slow" {
		time.Sleep(time.Duration(how.DelayMS) * time.Millisecond)
	}
	d, err := b.decide(r.Context(), key, req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	switch how.Mode {
	case "lost":
		panic(http.ErrAbortHandler) // charged; the connection drops before the answer
	case "late":
		time.Sleep(time.Duration(how.DelayMS) * time.Millisecond)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(d)
}

// decide charges once per key, in one transaction that also records the
// request: a repeated key gets the first decision, recorded as a
// duplicate. A new approval that names its payment enqueues the payment's
// settlement webhook in the same transaction.
func (b *bank) decide(ctx context.Context, key string, req chargeRequest) (decision, error) {
	ctx = context.WithoutCancel(ctx) // a client that gives up does not undo a charge
	status := "approved"
	if req.CardToken == "tok_declined" || req.Amount > 100000 {
		status = "declined"
	}
	var d decision
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		fresh := true
		err := tx.QueryRow(ctx, `INSERT INTO bank_decisions (idempotency_key, amount, status, reference) VALUES ($1, $2, $3, nullif($4, 0))
ON CONFLICT (idempotency_key) DO NOTHING RETURNING charge_id, status`, key, req.Amount, status, req.Reference).Scan(&d.ChargeID, &d.Status)
		if err == nil && b.settles && d.Status == "approved" && req.Reference > 0 {
			err = enqueueSettlement(ctx, tx, d.ChargeID, req.Reference)
		}
		if errors.Is(err, pgx.ErrNoRows) {
			// A statement of its own, so that under READ COMMITTED it sees
			// the decision a concurrent request with the key committed
			// while this one waited on it.
			fresh = false
			err = tx.QueryRow(ctx, `SELECT charge_id, status FROM bank_decisions WHERE idempotency_key = $1`, key).Scan(&d.ChargeID, &d.Status)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO bank_charges (idempotency_key, amount, duplicate, acted) VALUES ($1, $2, $3, true)`, key, req.Amount, !fresh)
		return err
	})
	return d, err
}

func (b *bank) lookup(w http.ResponseWriter, r *http.Request) {
	var d decision
	err := b.pool.QueryRow(r.Context(), `SELECT charge_id, status FROM bank_decisions WHERE idempotency_key = $1`, r.PathValue("key")).Scan(&d.ChargeID, &d.Status)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		http.Error(w, "never charged", http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(d)
}
