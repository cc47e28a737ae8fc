package core_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// committing is the handler of the reproduction: it books the message and
// then sends COMMIT through the transaction it was handed, and goes on as
// if that worked (returnErr false) or returns the error (true).
func committing(m message, stmt string, returnErr bool, calls *atomic.Int32, got *error) core.Func {
	return func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		calls.Add(1)
		if _, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step) VALUES ($1, 'booked')`, m.ID); err != nil {
			return core.Decision{}, err
		}
		_, err := tx.Exec(ctx, stmt)
		*got = err
		if returnErr && err != nil {
			return core.Decision{}, err
		}
		return core.Completed(ack(m.ID)), nil
	}
}

// TestTxControlIsRefused is the reproduction of a handler's COMMIT through
// the transaction it was handed, which committed the business changes
// without their record: the client was told the operation rolled back and
// its retry found the entity (one key, two answers). The statement is
// refused with ErrTxOwnedByExecutor before it reaches the server: a
// handler that returns the error leaves nothing behind and its retry
// runs; one that goes on completes with its record, and the retry gets
// that answer back.
func TestTxControlIsRefused(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, 0)
		var calls atomic.Int32
		var got error

		m := message{Source: "bank", ID: "msg-return", Body: []byte(`{}`)}
		_, err := c.handle(t.Context(), m, committing(m, " /* done */ commit ;", true, &calls, &got))
		if !errors.Is(got, core.ErrTxOwnedByExecutor) || !errors.Is(err, core.ErrTxOwnedByExecutor) {
			t.Fatalf("Exec(COMMIT) = %v, the attempt %v; want ErrTxOwnedByExecutor", got, err)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger`) + count(t, pool, `SELECT count(*) FROM idempotency_record`); n != 0 {
			t.Errorf("%d rows kept after the refused COMMIT rolled the attempt back, want 0", n)
		}
		if res, err := c.handle(t.Context(), m, book(m, &calls)); err != nil || res.Replayed || !res.Stored {
			t.Errorf("the retry: %+v, %v; want a new run", res, err)
		}

		m = message{Source: "bank", ID: "msg-on", Body: []byte(`{}`)}
		first, err := c.handle(t.Context(), m, committing(m, "END", false, &calls, &got))
		if err != nil || !errors.Is(got, core.ErrTxOwnedByExecutor) || !first.Stored {
			t.Fatalf("a handler that goes on: %+v, %v (Exec: %v)", first, err, got)
		}
		again, err := c.handle(t.Context(), m, book(m, &calls))
		if err != nil || !again.Replayed || again.OperationID != first.OperationID {
			t.Errorf("its retry: %+v, %v; want the stored answer", again, err)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger WHERE message_id = $1`, m.ID); n != 1 {
			t.Errorf("%d ledger rows, want the one booked with its record", n)
		}
	})
}

// TestTxControlStatements sends statement texts through every method of
// the handed-out transaction: those that end or start a transaction are
// refused whatever their case, comments, white space or position among
// several statements; savepoints, and transaction words inside strings,
// quoted names, dollar quotes and comments, reach the server and run.
func TestTxControlStatements(t *testing.T) {
	refused := []string{
		"COMMIT", "commit;", "  -- note\n\tCoMmIt", "/* a /* nested */ */ End", ";; abort", "END WORK",
		"ROLLBACK", "rollback and chain", "ROLLBACK PREPARED 'x'", "COMMIT PREPARED 'x'",
		"BEGIN", "start transaction", "PREPARE TRANSACTION 'x'",
		"SELECT 1; COMMIT", "SELECT ';'; rollback", "SELECT $$;$$; COMMIT", `SELECT E'\';'; COMMIT`,
		`SELECT "a;b"; END`, "SELECT 1 /* ; */; ABORT", "SELECT $1::text; COMMIT",
	}
	allowed := []string{
		"SELECT 'commit'", "SELECT 1 -- ; commit", "SELECT $$; COMMIT $$", "SELECT $x$; COMMIT; $x$",
		`SELECT E'\'; COMMIT'`, `SELECT 1 AS "x; commit"`, "/* commit */ SELECT 1", "SELECT 'it''s; commit'",
		"SAVEPOINT s1", "ROLLBACK TO SAVEPOINT s1", "rollback to s1", "RELEASE SAVEPOINT s1",
	}
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, _, _ := newConsumer(t, p, 0)
		m := message{Source: "bank", ID: "statements", Body: []byte(`{}`)}
		var problems []string
		check := func(method, sql string, err error, wantRefused bool) {
			switch {
			case wantRefused && !errors.Is(err, core.ErrTxOwnedByExecutor):
				problems = append(problems, method+"("+sql+") = "+errString(err)+", want ErrTxOwnedByExecutor")
			case !wantRefused && err != nil:
				problems = append(problems, method+"("+sql+") = "+err.Error()+", want it run")
			}
		}
		run := func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
			for _, sql := range refused {
				_, err := tx.Exec(ctx, sql)
				check("Exec", sql, err, true)
				_, err = tx.Query(ctx, sql)
				check("Query", sql, err, true)
				check("QueryRow", sql, tx.QueryRow(ctx, sql).Scan(), true)
				_, err = tx.Prepare(ctx, "stmt", sql)
				check("Prepare", sql, err, true)
				b := &pgx.Batch{}
				b.Queue("SELECT 1")
				b.Queue(sql)
				check("SendBatch", sql, tx.SendBatch(ctx, b).Close(), true)
			}
			for _, sql := range allowed {
				_, err := tx.Exec(ctx, sql)
				check("Exec", sql, err, false)
			}
			var s string
			err := tx.QueryRow(ctx, "SELECT 'begin; commit'").Scan(&s)
			check("QueryRow", "SELECT 'begin; commit'", err, false)
			// A nested transaction is a savepoint pgx issues itself.
			nested, err := tx.Begin(ctx)
			if err == nil {
				_, err = nested.Exec(ctx, "SELECT 1")
			}
			if err == nil {
				err = nested.Commit(ctx)
			}
			check("Begin and Commit", "a savepoint", err, false)
			return core.Completed(ack(m.ID)), nil
		}
		if res, err := c.handle(t.Context(), m, run); err != nil || !res.Stored {
			t.Fatalf("the attempt: %+v, %v", res, err)
		}
		if len(problems) > 0 {
			t.Errorf("%d statements treated wrongly:\n%s", len(problems), strings.Join(problems, "\n"))
		}
	})
}

// errString words err for a test message, nil included.
func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
