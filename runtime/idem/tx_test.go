package idem_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// The business function's transaction belongs to the executor: it cannot
// commit or roll back the top level (that would separate the effect from
// its record), nested transactions are savepoints, and the transaction is
// closed once the executor is done with it.
func TestBusinessTransactionIsOwnedByExecutor(t *testing.T) {
	d := newDB(t)
	var kept pgx.Tx
	fn := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		kept = tx
		if err := tx.Commit(ctx); !errors.Is(err, idem.ErrTxOwnedByExecutor) {
			return nil, errors.New("Commit: want ErrTxOwnedByExecutor, got " + errString(err))
		}
		if err := tx.Rollback(ctx); !errors.Is(err, idem.ErrTxOwnedByExecutor) {
			return nil, errors.New("Rollback: want ErrTxOwnedByExecutor, got " + errString(err))
		}
		nested, err := tx.Begin(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := nested.Exec(ctx, "INSERT INTO orders (tenant, customer, amount) VALUES ('t', 'undone', 1)"); err != nil {
			return nil, err
		}
		if err := nested.Rollback(ctx); err != nil {
			return nil, err
		}
		return createOrder(ctx, tx, op, req)
	}
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, fn)
	if r := post(h, "t", "tx-1", `{"customer":"kept","amount":1}`); r.Status != http.StatusCreated {
		t.Fatalf("status %d body %s", r.Status, r.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders WHERE customer = 'kept'"); n != 1 {
		t.Errorf("%d kept orders, want 1", n)
	}
	if n := d.count(t, "SELECT count(*) FROM orders WHERE customer = 'undone'"); n != 0 {
		t.Errorf("%d orders of the rolled-back savepoint, want 0", n)
	}
	if _, err := kept.Exec(context.Background(), "SELECT 1"); !errors.Is(err, pgx.ErrTxClosed) {
		t.Errorf("Exec after the operation: %v, want pgx.ErrTxClosed", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// Logs name the key by its hash only.
func TestLogsHashTheKey(t *testing.T) {
	d := newDB(t)
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	secret := []byte("deployment-secret")
	h := newHandler(t, d.pool, orderContract(), idem.Config{Logger: logger, KeyHashSecret: secret}, createOrder)
	const key = "very-secret-key-4711"
	post(h, "tenant-a", key, `{"customer":"c","amount":1}`)
	post(h, "tenant-a", key, `{"customer":"c","amount":1}`)
	out := buf.String()
	if strings.Contains(out, key) {
		t.Errorf("log contains the key in clear:\n%s", out)
	}
	if n := strings.Count(out, idemkey.Hash(secret, "tenant-a", key)); n != 2 {
		t.Errorf("log names the key hash %d times, want 2:\n%s", n, out)
	}
	for _, outcome := range []string{`"outcome":"new"`, `"outcome":"replay"`} {
		if !strings.Contains(out, outcome) {
			t.Errorf("log lacks %s:\n%s", outcome, out)
		}
	}
}
