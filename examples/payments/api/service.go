// Package api is the payments example's API: what idemgen generates from
// openapi.yaml (the openapi_*.go files), and, written by hand beside it,
// the business logic (this file) and the bank's client (bank.go). The
// steps of the phased POST /payments record a payment, charge the card
// through the bank with the step's key, and record what the bank decided.
package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
)

// Schema is the service's own tables, created by the example at start (in
// a real service, a migration of its own): the payments, and the ledger
// the bank's settlements on JetStream are entered in (ledger.go).
const Schema = `
CREATE TABLE IF NOT EXISTS payments (
    id          bigserial PRIMARY KEY,
    merchant    text        NOT NULL,
    amount      bigint      NOT NULL,
    currency    text        NOT NULL,
    status      text        NOT NULL DEFAULT 'pending',
    charge_id   bigint,
    created_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE payments ADD COLUMN IF NOT EXISTS settled_at timestamptz;
CREATE TABLE IF NOT EXISTS ledger_entries (
    id          bigserial PRIMARY KEY,
    payment_id  bigint      NOT NULL REFERENCES payments (id),
    amount      bigint      NOT NULL,
    currency    text        NOT NULL,
    kind        text        NOT NULL, -- settlement
    entered_at  timestamptz NOT NULL DEFAULT now()
)`

// Service implements the generated Handlers.
type Service struct {
	Bank *Bank
}

var (
	_ Handlers        = Service{}
	_ WebhookHandlers = Service{}
)

// ReceiveBankSettlement marks the payment the bank settled and enqueues
// its settlement email, in the inbox's transaction: a redelivery of the
// webhook never reaches here. A payment this service does not know fails
// the delivery (the bank retries, then it is dead-lettered for support).
func (s Service) ReceiveBankSettlement(ctx context.Context, tx pgx.Tx, op *ReceiveBankSettlementOperation, req *ReceiveBankSettlementRequest) error {
	tag, err := tx.Exec(ctx, `UPDATE payments SET settled_at = now() WHERE id = $1`, req.Body.PaymentID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("settlement of unknown payment %d", req.Body.PaymentID)
	}
	_, err = op.EnqueueSettlementEmail(ctx, fmt.Appendf(nil, `{"payment_id":%d}`, req.Body.PaymentID))
	return err
}

// CreatePaymentRecordPayment records the payment, pending, in the step's
// transaction: its id is the step's output, handed to the charge.
func (s Service) CreatePaymentRecordPayment(ctx context.Context, tx pgx.Tx, op *CreatePaymentOperation, req *CreatePaymentRequest) (*PaymentRecord, error) {
	var id int64
	err := tx.QueryRow(ctx, `INSERT INTO payments (merchant, amount, currency) VALUES ($1, $2, $3) RETURNING id`,
		op.Scope, req.Body.Amount, string(req.Body.Currency)).Scan(&id)
	if err != nil {
		return nil, err
	}
	return &PaymentRecord{PaymentID: id}, nil
}

// CreatePaymentChargeCard charges the card through the bank with the
// step's key, so that the bank recognises a repeated call.
func (s Service) CreatePaymentChargeCard(ctx context.Context, op *CreatePaymentOperation, key string, req *CreatePaymentRequest, in *PaymentRecord) (*Charge, error) {
	d, err := s.Bank.Charge(ctx, key, in.PaymentID, req.Body.Amount, string(req.Body.Currency), req.Body.CardToken)
	if err != nil {
		var refused *Refused
		if errors.As(err, &refused) {
			return nil, &idem.Rejection{Status: http.StatusUnprocessableEntity, Title: "Payment refused", Detail: refused.Error()}
		}
		return nil, err // unknown: the step's verify policy asks the bank
	}
	return &Charge{PaymentID: in.PaymentID, ChargeID: d.ChargeID, Status: ChargeStatus(d.Status)}, nil
}

// CreatePaymentChargeCardVerify asks the bank what it decided for the key.
func (s Service) CreatePaymentChargeCardVerify(ctx context.Context, op *CreatePaymentOperation, key string, req *CreatePaymentRequest, in *PaymentRecord) (*Charge, bool, error) {
	d, found, err := s.Bank.Lookup(ctx, key)
	if err != nil || !found {
		return nil, false, err
	}
	return &Charge{PaymentID: in.PaymentID, ChargeID: d.ChargeID, Status: ChargeStatus(d.Status)}, true, nil
}

// CreatePaymentRecordOutcome records what the bank decided and answers.
func (s Service) CreatePaymentRecordOutcome(ctx context.Context, tx pgx.Tx, op *CreatePaymentOperation, req *CreatePaymentRequest, in *Charge) (CreatePaymentResponse, error) {
	tag, err := tx.Exec(ctx, `UPDATE payments SET status = $2, charge_id = $3 WHERE id = $1 AND merchant = $4`,
		in.PaymentID, string(in.Status), in.ChargeID, op.Scope)
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() != 1 {
		return nil, fmt.Errorf("payment %d of %s is gone", in.PaymentID, op.Scope)
	}
	return CreatePayment201Response{Body: Payment{ID: in.PaymentID, Status: PaymentStatus(in.Status)}}, nil
}
