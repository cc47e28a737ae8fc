package api

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// EnterSettlement is the handler of the service's second consumer of the
// bank's settlements, the broker consumer declared in openapi.yaml
// (ledgerSettlement: JetStream subject bank.settlements, keyed by the
// payment): it enters the settled payment's amount in the ledger, in the
// inbox's transaction, so that a redelivery or a republished settlement
// never reaches here twice. The generated consumer has already decoded
// and validated the body; a payment this service does not know fails the
// delivery (redelivered, then dead-lettered for support).
func (s Service) EnterSettlement(ctx context.Context, tx pgx.Tx, op *EnterSettlementOperation, req *EnterSettlementRequest) error {
	tag, err := tx.Exec(ctx, `INSERT INTO ledger_entries (payment_id, amount, currency, kind)
SELECT id, amount, currency, 'settlement' FROM payments WHERE id = $1`, req.Body.PaymentID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("settlement %s of unknown payment %d", op.Key, req.Body.PaymentID)
	}
	return nil
}
