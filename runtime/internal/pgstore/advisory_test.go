package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// The advisory lock key of a (scope, key) must never change: instances of
// two releases serving one database must wait for each other.
func TestKeyHashIsStable(t *testing.T) {
	pinned := map[[2]string]int64{
		{"tenant-a", "k-1"}: -3295010175908988422,
		{"", "tenant-ak-1"}: 7432817477131588770,
		{"tenant-ak-1", ""}: 2945771498036281669,
	}
	for k, want := range pinned {
		if got := pgstore.LockKey(k[0], k[1]); got != want {
			t.Errorf("LockKey(%q, %q) = %d, want %d (the lock key must not change across releases)", k[0], k[1], got, want)
		}
	}
}

// openRecord sends the opening pipeline for key on conn.
func openRecord(ctx context.Context, conn *pgxpool.Conn, s *pgstore.Store, key string, o pgstore.OpenOptions) (pgstore.Opened, pgx.Tx, error) {
	var b pgx.Batch
	s.QueueOpen(&b, "s", key, o)
	br := pgstore.SendPrepared(ctx, conn.Conn(), conn.Conn(), o.LockTimeout, &b)
	opened, err := s.ReadOpen(br, o)
	return opened, br.Tx(), err
}

// The opening pipeline: a miss leaves the transaction open with the key's
// lock held; a second opener then waits for the lock, bounded; a record
// committed while it waited is found by the recheck; and once the record
// is there the pipeline ends its own transaction after the lookup.
func TestOpenLocksRechecksAndReplaysInOneRoundTrip(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	s := pgstore.New("")
	first, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	second, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	wait := pgstore.OpenOptions{LockTimeout: 50 * time.Millisecond}

	opened, _, err := openRecord(ctx, first, s, "k", wait)
	if err != nil || !opened.Locked || opened.Record != nil {
		t.Fatalf("first open: %+v, %v; want the lock and no record", opened, err)
	}
	if st := first.Conn().PgConn().TxStatus(); st != 'T' {
		t.Fatalf("first open: transaction status %c, want T", st)
	}
	// Under the bound, the second opener times out and is left with no transaction.
	var pgErr interface{ SQLState() string }
	if _, _, err := openRecord(ctx, second, s, "k", wait); !errors.As(err, &pgErr) || pgErr.SQLState() != "55P03" {
		t.Fatalf("second open while the lock is held: %v, want SQLSTATE 55P03", err)
	}
	if st := second.Conn().PgConn().TxStatus(); st != 'I' {
		t.Fatalf("after the lock timeout: transaction status %c, want I", st)
	}
	if opened, _, err := openRecord(ctx, second, s, "k", pgstore.OpenOptions{Try: true}); err != nil || opened.Locked || opened.Record != nil {
		t.Fatalf("try while the lock is held: %+v, %v; want neither lock nor record", opened, err)
	}
	if st := second.Conn().PgConn().TxStatus(); st != 'I' {
		t.Fatalf("after a try that met the lock: transaction status %c, want I (the pipeline ends itself)", st)
	}

	// A waiting opener sees the record the first one commits.
	c := newClaim("k", time.Hour, time.Hour)
	done := make(chan pgstore.Opened)
	go func() {
		opened, _, err := openRecord(ctx, second, s, "k", pgstore.OpenOptions{LockTimeout: time.Minute})
		if err != nil {
			t.Error(err)
		}
		done <- opened
	}()
	awaitAdvisoryWaiter(t, pool, pgstore.LockKey("s", "k"))
	var b pgx.Batch
	if err := s.QueueInsert(&b, pgstore.Insertion{Claim: c, Completion: pgstore.Completion{State: pgstore.StateCompleted,
		Status: 201, Header: []byte(`{}`), Body: []byte(`{"ok":true}`)}}, false); err != nil {
		t.Fatal(err)
	}
	if err := first.SendBatch(ctx, &b).Close(); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got.Locked || got.Record == nil || got.Record.OperationID != c.OperationID {
		t.Fatalf("open that waited: %+v, want the committed record", got)
	}
	rollback(t, second)

	// Now the lookup finds it: one round trip, and no transaction left.
	opened, tx, err := openRecord(ctx, second, s, "k", wait)
	if err != nil || opened.Locked || opened.Record == nil || opened.Record.Status != 201 {
		t.Fatalf("open of a completed key: %+v, %v; want the record", opened, err)
	}
	if st := second.Conn().PgConn().TxStatus(); st != 'I' {
		t.Errorf("after the replay's pipeline: transaction status %c, want I", st)
	}
	if err := tx.Commit(ctx); err == nil {
		t.Error("the pipeline's transaction is still open after a replay")
	}
	if _, err := second.Exec(ctx, "SELECT 1"); err != nil {
		t.Errorf("the connection after a replay: %v", err)
	}
}

// The completed record is inserted once; a second insert of the key fails
// with a unique violation, and a state other than completed or failed is
// refused before anything is sent.
func TestInsertRecordIsArbitratedByThePrimaryKey(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	s := pgstore.New("")
	insert := func(c pgstore.Claim, state pgstore.State) error {
		var b pgx.Batch
		if err := s.QueueInsert(&b, pgstore.Insertion{Claim: c, Completion: pgstore.Completion{State: state, Status: 201,
			Header: []byte(`{}`)}}, false); err != nil {
			return err
		}
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }()
		br := tx.SendBatch(ctx, &b)
		err = s.ReadInsert(br, false)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err := insert(newClaim("k", time.Hour, time.Hour), pgstore.StateInProgress); err == nil {
		t.Error("an in-progress record was inserted")
	}
	if err := insert(newClaim("k", time.Hour, time.Hour), pgstore.StateCompleted); err != nil {
		t.Fatal(err)
	}
	if err := insert(newClaim("k", time.Hour, time.Hour), pgstore.StateFailed); !pgstore.IsUniqueViolation(err) {
		t.Errorf("second insert of the key: %v, want a unique violation", err)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM idempotency_record").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d records (%v), want 1", n, err)
	}
}

func rollback(t *testing.T, conn *pgxpool.Conn) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}

// awaitAdvisoryWaiter returns once a session of this database waits for
// the advisory lock key; it polls pg_locks, the only place that state is
// visible.
func awaitAdvisoryWaiter(t *testing.T, pool *pgxpool.Pool, key int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
			  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			  AND classid::bigint = $1 AND objid::bigint = $2`, int64(uint64(key)>>32), int64(uint32(key))).Scan(&n)
		if err == nil && n > 0 {
			return
		}
	}
	t.Fatal("the second opener never waited for the lock")
}
