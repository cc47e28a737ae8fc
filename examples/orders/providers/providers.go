// Package providers holds the example's demo providers: stand-ins for a
// mail service and a warehouse, implemented against the typed provider
// interfaces generated from openapi.yaml. Each records every call it gets
// in the table provider_calls and, as a real provider does with an
// idempotency key, acts once per effect key: a repeated key is recorded as
// a duplicate and acknowledged without acting again.
package providers

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
)

// New returns the demo providers of every effect of the shop, recording
// on pool (the table SchemaSQL creates), for shop.Providers.
func New(pool *pgxpool.Pool) shop.EffectProviders {
	r := recorder{pool}
	return shop.EffectProviders{
		ConfirmationEmail: confirmationMailer{r},
		ReserveStock:      stockReserver{r},
		ReleaseStock:      stockReleaser{r},
		CancellationEmail: cancellationMailer{r},
	}
}

// recorder is what every demo provider shares: the record of calls.
type recorder struct {
	pool *pgxpool.Pool
}

// uniqueViolation is PostgreSQL's SQLSTATE for a unique index refusing a
// row.
const uniqueViolation = "23505"

// act records one call of effect under key and acts unless the key was
// acted on before. A call that cannot be recorded has an unknown outcome:
// the effect's policy decides what follows.
func (r recorder) act(ctx context.Context, effect, key, orderID string, attempt int) idem.EffectOutcome {
	_, err := r.pool.Exec(ctx, `INSERT INTO provider_calls (effect, effect_key, order_id, attempt, duplicate)
		VALUES ($1, $2, $3, $4, EXISTS (SELECT 1 FROM provider_calls WHERE effect_key = $2 AND NOT duplicate))`,
		effect, key, orderID, attempt)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation {
		// Another call under the key acted at the same moment: this one
		// did not, and whether the other committed is for the next
		// attempt to see.
		return idem.EffectUnknown(fmt.Errorf("%s %s: a concurrent call under the same key", effect, key))
	}
	if err != nil {
		return idem.EffectUnknown(fmt.Errorf("%s %s: %w", effect, key, err))
	}
	return idem.EffectDone()
}

// verify answers whether the provider acted on key.
func (r recorder) verify(ctx context.Context, key string) idem.VerifyOutcome {
	var acted bool
	err := r.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM provider_calls WHERE effect_key = $1 AND NOT duplicate)", key).Scan(&acted)
	switch {
	case err != nil:
		return idem.VerifyUnknown
	case acted:
		return idem.VerifyDone
	default:
		return idem.VerifyNotDone
	}
}

// confirmationMailer sends the order confirmation (confirmation_email).
type confirmationMailer struct{ r recorder }

// Do sends the confirmation of call's order once per effect key.
func (m confirmationMailer) Do(ctx context.Context, call shop.ConfirmationEmailCall) idem.EffectOutcome {
	return m.r.act(ctx, "confirmation_email", call.Key, call.Payload.OrderID, call.Attempt)
}

// stockReserver reserves an order's items at the warehouse
// (reserve_stock).
type stockReserver struct{ r recorder }

// Do reserves the items of call's order once per effect key.
func (s stockReserver) Do(ctx context.Context, call shop.ReserveStockCall) idem.EffectOutcome {
	return s.r.act(ctx, "reserve_stock", call.Key, call.Payload.OrderID, call.Attempt)
}

// Verify answers whether the warehouse has the reservation under key.
func (s stockReserver) Verify(ctx context.Context, key string) idem.VerifyOutcome {
	return s.r.verify(ctx, key)
}

// stockReleaser releases a cancelled order's reservation (release_stock).
type stockReleaser struct{ r recorder }

// Do releases the items of call's order once per effect key.
func (s stockReleaser) Do(ctx context.Context, call shop.ReleaseStockCall) idem.EffectOutcome {
	return s.r.act(ctx, "release_stock", call.Key, call.Payload.OrderID, call.Attempt)
}

// Verify answers whether the warehouse has the release under key.
func (s stockReleaser) Verify(ctx context.Context, key string) idem.VerifyOutcome {
	return s.r.verify(ctx, key)
}

// cancellationMailer tells the customer the order is cancelled
// (cancellation_email).
type cancellationMailer struct{ r recorder }

// Do sends the cancellation of call's order once per effect key.
func (m cancellationMailer) Do(ctx context.Context, call shop.CancellationEmailCall) idem.EffectOutcome {
	return m.r.act(ctx, "cancellation_email", call.Key, call.Payload.OrderID, call.Attempt)
}
