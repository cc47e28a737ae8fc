package pgstore_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// insertRecord claims (scope, key) and completes it in one transaction, as
// the executor does.
func insertRecord(t *testing.T, ctx context.Context, pool *pgxpool.Pool, s *pgstore.Store, key string, retention, tombstone time.Duration) {
	t.Helper()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	c := newClaim(key, retention, tombstone)
	if claimed, err := claimRecord(ctx, conn, s, c, time.Second); err != nil || !claimed {
		t.Fatalf("claim %s: claimed %v, %v", key, claimed, err)
	}
	if err := completeRecord(ctx, conn, s, c, pgstore.StateCompleted, true); err != nil {
		t.Fatal(err)
	}
}

// newClaim is a claim of key in scope "s" by a new operation, kept for
// retention and then as a tombstone for tombstone.
func newClaim(key string, retention, tombstone time.Duration) pgstore.Claim {
	var id [16]byte
	_, _ = rand.Read(id[:])
	return pgstore.Claim{Scope: "s", Key: key, Fingerprint: []byte{1}, OperationID: id, Retention: retention, Tombstone: tombstone}
}

// age moves the records whose keys are LIKE keys d into the past, as the
// database's clock moving on would: their creation, completion and
// deadlines.
func age(t *testing.T, db pgstore.Execer, keys string, d time.Duration) {
	t.Helper()
	if _, err := db.Exec(context.Background(), `UPDATE idempotency_record
		SET created_at = created_at - make_interval(secs => $2), completed_at = completed_at - make_interval(secs => $2),
		    expires_at = expires_at - make_interval(secs => $2), purge_at = purge_at - make_interval(secs => $2)
		WHERE idempotency_key LIKE $1`, keys, d.Seconds()); err != nil {
		t.Fatal(err)
	}
}

// claimRecord opens a transaction on conn and claims c in it, waiting at
// most wait for a concurrent holder; it reports whether the key was taken.
func claimRecord(ctx context.Context, conn *pgxpool.Conn, s *pgstore.Store, c pgstore.Claim, wait time.Duration) (bool, error) {
	opts := pgstore.ClaimOptions{Begin: true, LockTimeout: wait}
	var b pgx.Batch
	s.QueueClaim(&b, c, opts)
	br := conn.SendBatch(ctx, &b)
	claimed, err := s.ReadClaim(br, opts)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return claimed, err
}

// completeRecord stores a 201 response for the claim c in state, and
// commits when commit is set.
func completeRecord(ctx context.Context, conn *pgxpool.Conn, s *pgstore.Store, c pgstore.Claim, state pgstore.State, commit bool) error {
	var b pgx.Batch
	done := pgstore.Completion{Scope: c.Scope, Key: c.Key, OperationID: c.OperationID, State: state,
		Status: 201, Header: []byte(`{}`), Body: []byte(`{"ok":true}`)}
	s.QueueComplete(&b, done, false, commit)
	br := conn.SendBatch(ctx, &b)
	err := s.ReadComplete(br, done, false, commit)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// Migrate is idempotent and honours the schema name, and a Store for that
// schema addresses it whatever the search_path says.
func TestMigrateIntoNamedSchema(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	name := fmt.Sprintf("idem store %d", time.Now().UnixNano()) // needs quoting
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{name}.Sanitize()+" CASCADE")
	})
	for range 2 {
		if err := schema.Migrate(ctx, pool, name); err != nil {
			t.Fatal(err)
		}
	}
	s := pgstore.New(name)
	insertRecord(t, ctx, pool, s, "k", time.Hour, time.Hour)
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{name, "idempotency_record"}.Sanitize()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d records in %q, want 1", n, name)
	}
	var local bool
	err := pool.QueryRow(ctx, "SELECT to_regclass('idempotency_record') IS NOT NULL").Scan(&local)
	if err != nil || local {
		t.Errorf("a table on the search_path: %v, %v; want it only in %q", local, err, name)
	}

	// The outbox and the natural-key table are qualified the same way.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	first, second := [16]byte{1}, [16]byte{2}
	if _, err := s.Enqueue(ctx, tx, pgstore.Effect{Scope: "s", OperationID: first, Name: "mail", OnUnknown: "retry"}); err != nil {
		t.Fatal(err)
	}
	nk := pgstore.NaturalKey{Scope: "s", Operation: "op", Key: `["a"]`, OperationID: first}
	if holder, err := s.ClaimNaturalKey(ctx, tx, nk); err != nil || holder != "" {
		t.Fatalf("first natural-key claim: holder %q, %v; want it claimed", holder, err)
	}
	nk.OperationID = second
	holder, err := s.ClaimNaturalKey(ctx, tx, nk)
	if want := "01000000-0000-0000-0000-000000000000"; err != nil || holder != want {
		t.Fatalf("second natural-key claim: holder %q, %v; want %s", holder, err, want)
	}
	for _, table := range []string{"idempotency_outbox", "idempotency_natural_key"} {
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{name, table}.Sanitize()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%d rows in %q.%s, want 1", n, name, table)
		}
	}
}

// Sweep works in bounded batches and skips, never waits for, rows another
// transaction holds.
func TestSweepBatchesAndSkipsLockedRows(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	s := pgstore.New("")
	for i := range 25 {
		insertRecord(t, ctx, pool, s, fmt.Sprintf("old-%02d", i), time.Hour, time.Hour)
	}
	insertRecord(t, ctx, pool, s, "young", time.Hour, time.Hour)
	age(t, pool, "old-%", time.Hour) // the old ones at the end of retention on the database's clock

	holder, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(ctx) }()
	if _, err := holder.Exec(ctx, "SELECT 1 FROM idempotency_record WHERE idempotency_key = 'old-00' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	sweepCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := sweepAll(sweepCtx, pool, s, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{24, 0}, got); diff != "" {
		t.Errorf("sweep with one row held (-want +got):\n%s", diff)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	age(t, pool, "%", time.Hour) // an hour later: the old tombstones' period over, the young one's retention
	got, err = sweepAll(ctx, pool, s, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 25}, got); diff != "" {
		t.Errorf("second sweep (-want +got):\n%s", diff)
	}
	var key, state string
	if err := pool.QueryRow(ctx, "SELECT idempotency_key, state FROM idempotency_record").Scan(&key, &state); err != nil {
		t.Fatal(err)
	}
	if key != "young" || state != string(pgstore.StateTombstone) {
		t.Errorf("left %s in state %s, want young as a tombstone", key, state)
	}
	if _, err := s.SweepBatch(ctx, pool, pgstore.SweepTombstone, 0, 0); err == nil {
		t.Error("SweepBatch with batch size 0 succeeded")
	}
}

// sweepAll runs the tombstone and purge steps in batches of batchSize
// until each comes back short, and returns the rows each changed.
func sweepAll(ctx context.Context, db pgstore.Execer, s *pgstore.Store, batchSize int) ([]int, error) {
	var counts []int
	for _, step := range []pgstore.SweepStep{pgstore.SweepTombstone, pgstore.SweepPurge} {
		total := 0
		for {
			n, err := s.SweepBatch(ctx, db, step, batchSize, 0)
			if err != nil {
				return nil, err
			}
			total += n
			if n < batchSize {
				break
			}
		}
		counts = append(counts, total)
	}
	return counts, nil
}

// A claim that waits longer than its lock timeout fails with SQLSTATE
// 55P03, which the executor turns into 409.
func TestClaimWaitIsBounded(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	s := pgstore.New("")
	claim := func(conn *pgxpool.Conn) (bool, error) {
		return claimRecord(ctx, conn, s, newClaim("k", time.Hour, time.Hour), 50*time.Millisecond)
	}
	first, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	if claimed, err := claim(first); err != nil || !claimed {
		t.Fatalf("first claim: claimed %v, %v", claimed, err)
	}
	second, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	_, err = claim(second)
	var pgErr interface{ SQLState() string }
	if !errors.As(err, &pgErr) || pgErr.SQLState() != "55P03" {
		t.Errorf("second claim: %v, want SQLSTATE 55P03", err)
	}
	for _, c := range []*pgxpool.Conn{first, second} {
		if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
}

// The record's state column has no CHECK constraint; CompleteRecord keeps
// the states closed instead, storing only completed or failed.
func TestCompletionStoresOnlyFinalStates(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	s := pgstore.New("")
	complete := func(key string, state pgstore.State) error {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		c := newClaim(key, time.Hour, time.Hour)
		claimed, err := claimRecord(ctx, conn, s, c, time.Second)
		if err == nil && !claimed {
			t.Fatalf("%s: not claimed", key)
		}
		if err == nil {
			err = completeRecord(ctx, conn, s, c, state, false)
		}
		if _, rerr := conn.Exec(ctx, "ROLLBACK"); rerr != nil {
			t.Fatal(rerr)
		}
		return err
	}
	for _, state := range []pgstore.State{pgstore.StateCompleted, pgstore.StateFailed} {
		if err := complete("k-"+string(state), state); err != nil {
			t.Errorf("%s: %v", state, err)
		}
	}
	for _, state := range []pgstore.State{pgstore.StateInProgress, pgstore.StateRequiresRecovery, pgstore.StateTombstone, "done"} {
		err := complete("k-"+string(state), state)
		if err == nil || !strings.Contains(err.Error(), "updated 0 records") {
			t.Errorf("%s: %v, want the completion to update no record", state, err)
		}
	}
}

// A record's deadlines are the database's: created at its now(), expiring
// after retention and deleted after the tombstone period from then; a
// read carries the database's time, which Expired compares with.
func TestDeadlinesAreTheDatabases(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	s := pgstore.New("")
	var before time.Time
	if err := pool.QueryRow(ctx, "SELECT now()").Scan(&before); err != nil {
		t.Fatal(err)
	}
	insertRecord(t, ctx, pool, s, "k", time.Hour, 2*time.Hour)
	var retention, purge time.Duration
	var created time.Time
	if err := pool.QueryRow(ctx, `SELECT created_at, expires_at - created_at, purge_at - created_at FROM idempotency_record`).
		Scan(&created, &retention, &purge); err != nil {
		t.Fatal(err)
	}
	if created.Before(before) || retention != time.Hour || purge != 3*time.Hour {
		t.Errorf("created %v (the database's clock was %v before), retention %v, purge after %v; want 1h and 3h from the database's now()",
			created, before, retention, purge)
	}
	read := func() *pgstore.Record {
		t.Helper()
		var b pgx.Batch
		s.QueueRecord(&b, "s", "k")
		br := pool.SendBatch(ctx, &b)
		defer br.Close()
		rec, err := s.ReadRecord(br)
		if err != nil || rec == nil {
			t.Fatalf("read: %+v, %v", rec, err)
		}
		return rec
	}
	if rec := read(); rec.ReadAt.Before(created) || rec.Expired() {
		t.Errorf("read at %v (created %v): expired %v, want a read after the creation, within retention", rec.ReadAt, created, rec.Expired())
	}
	age(t, pool, "k", time.Hour)
	if rec := read(); !rec.Expired() {
		t.Errorf("an hour later on the database's clock: read at %v, expires %v, not expired", rec.ReadAt, rec.ExpiresAt)
	}
}

// A takeover's and a lease's release's waits are bounded on the server also
// when what they wait for is a lock on a table (DDL, VACUUM FULL, LOCK
// TABLE in another session): the table is locked when the statement is
// bound, before a bound set inside it would run, so BoundLockWaits goes
// first in the same round trip. The connection is warmed by a first call,
// as a busy pool's are (a new connection's:
// TestProgressPreparationIsBoundedAgainstATableLock).
func TestProgressWaitsAreBoundedAgainstATableLock(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range progressCalls(pgstore.New("")) {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			if err := tc.call(ctx, conn, time.Second); err != nil {
				t.Fatalf("warm-up on no operation: %v", err)
			}
			barrier, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = barrier.Rollback(ctx) }()
			if _, err := barrier.Exec(ctx, "LOCK TABLE idempotency_progress IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			backstop, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			err = tc.call(backstop, conn, 50*time.Millisecond)
			var pgErr interface{ SQLState() string }
			if !errors.As(err, &pgErr) || pgErr.SQLState() != "55P03" {
				t.Errorf("behind a table lock: %v, want SQLSTATE 55P03 from the server", err)
			}
		})
	}
}
