package api

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
)

// EnterSettlement is the handler of the service's second consumer of the
// bank's settlements, the one on JetStream: it enters the settled
// payment's amount in the ledger, in the inbox's transaction, so that a
// redelivery or a republished settlement never reaches here twice. A
// body that is not a settlement, or a payment this service does not know,
// fails the delivery (redelivered, then dead-lettered for support).
//
// The contract has no declared form for a broker consumer (x-idempotency
// describes webhooks), so this one is wired by hand with the runtime's
// API: idem.NewConsumer, and the jetstream adapter in the command.
func (s Service) EnterSettlement(ctx context.Context, tx pgx.Tx, d *idem.Delivery) error {
	var m Settlement
	if err := json.Unmarshal(d.Message.Body, &m); err != nil || m.Type != SettlementTypePaymentSettled || m.PaymentID <= 0 {
		return fmt.Errorf("message %s: not a payment.settled settlement: %s", d.Message.ID, d.Message.Body)
	}
	tag, err := tx.Exec(ctx, `INSERT INTO ledger_entries (payment_id, amount, currency, kind)
SELECT id, amount, currency, 'settlement' FROM payments WHERE id = $1`, m.PaymentID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("settlement of unknown payment %d", m.PaymentID)
	}
	return nil
}
