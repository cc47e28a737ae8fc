package inbox_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// ledgerDDL is the business side of the tests' handler: one row per
// payment settled, unique, so that a second commit of the same message's
// changes would fail loudly rather than be counted.
const ledgerDDL = `CREATE TABLE settled (payment_id text PRIMARY KEY, body text NOT NULL)`

// newDB returns the connection string of a database of the test's own,
// migrated, with the ledger table.
func newDB(t testing.TB) string {
	t.Helper()
	cs := pgtest.ConnString(t)
	pool := newPool(t, cs)
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), ledgerDDL); err != nil {
		t.Fatal(err)
	}
	return cs
}

func newPool(t testing.TB, cs string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newConsumer returns a consumer named settle on its own pool of cs with
// handler h and at most maxAttempts attempts.
func newConsumer(t testing.TB, cs string, maxAttempts int, h inbox.Func) *inbox.Consumer {
	t.Helper()
	e, err := core.New(core.Config{Pool: newPool(t, cs)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: maxAttempts, Retention: 72 * time.Hour, Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// settle is the tests' handler: it records the message's payment as
// settled and enqueues a settlement_email effect, in the inbox's
// transaction.
func settle(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
	if _, err := tx.Exec(ctx, `INSERT INTO settled (payment_id, body) VALUES ($1, $2)`, m.ID, string(m.Body)); err != nil {
		return err
	}
	_, err := op.Enqueue(ctx, tx, core.Effect{Name: "settlement_email", OnUnknown: "retry", Payload: m.Body})
	return err
}

// errPoison is the failure of a handler that never succeeds.
var errPoison = errors.New("poison: the payment does not exist")

// counts returns the rows of the ledger, of the outbox and of the inbox.
func counts(t testing.TB, cs string) (settled, effects, inboxRows int) {
	t.Helper()
	pool := newPool(t, cs)
	err := pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM settled), (SELECT count(*) FROM idempotency_outbox),
		(SELECT count(*) FROM idempotency_inbox)`).Scan(&settled, &effects, &inboxRows)
	if err != nil {
		t.Fatal(err)
	}
	return settled, effects, inboxRows
}
