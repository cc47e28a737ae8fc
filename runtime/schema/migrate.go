package schema

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// lockTimeout bounds every lock wait of Migrate and Require. A claim that
// arrives while one of Migrate's statements waits for a table lock queues
// behind it, so the wait is kept short and Migrate retries instead.
const lockTimeout = "100ms"

// The backoff between Migrate's attempts grows from minBackoff to
// maxBackoff, with jitter, until its context ends.
const (
	minBackoff = 20 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// Migrate brings schema (created when missing; "" is the first schema of
// the search_path) up to Version, for services that migrate at start. It
// reads the recorded version and applies only the missing steps, each in a
// transaction of its own under an advisory lock on the schema's name, so
// concurrent starts apply each step once. A current schema costs one read
// and no DDL. Each of its lock waits is bounded (lock_timeout 100ms), so it
// never holds up live claims for longer; a wait that times out is retried
// with backoff until ctx ends.
func Migrate(ctx context.Context, db Beginner, schema string) error {
	return migrate(ctx, db, schema, observer{})
}

// observer lets the tests watch migrate; nil fields are not called.
type observer struct {
	applied func(Step)  // a step this call applied
	retry   func(error) // an attempt failed with this retryable error
}

// migrate is Migrate, watched by obs.
func migrate(ctx context.Context, db Beginner, schema string, obs observer) error {
	backoff := minBackoff
	for {
		err := migrateOnce(ctx, db, schema, obs.applied)
		if err == nil {
			return nil
		}
		if !retryable(err) {
			return fmt.Errorf("schema: migrate: %w", err)
		}
		if obs.retry != nil {
			obs.retry(err)
		}
		wait := time.NewTimer(backoff/2 + rand.N(backoff/2+1))
		select {
		case <-ctx.Done():
			wait.Stop()
			return fmt.Errorf("schema: migrate: %w (last attempt: %w)", ctx.Err(), err)
		case <-wait.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// migrateOnce reads the version without the advisory lock and, when the
// schema is behind, applies the missing steps one by one.
func migrateOnce(ctx context.Context, db Beginner, schema string, applied func(Step)) error {
	have, err := installed(ctx, db, schema)
	if err != nil {
		return err
	}
	for _, s := range all[min(have, len(all)):] {
		done, err := applyStep(ctx, db, schema, s)
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", s.Number, s.Name, err)
		}
		if done && applied != nil {
			applied(s)
		}
	}
	return nil
}

// applyStep applies s in a transaction of its own unless, once the
// advisory lock is held, the schema already has it (another instance
// applied it meanwhile). It reports whether it applied s.
func applyStep(ctx context.Context, db Beginner, schema string, s Step) (bool, error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
	if err := boundLockWaits(ctx, tx); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+lockKey+")", schema); err != nil {
		return false, err
	}
	have, err := version(ctx, tx, schema)
	if err != nil || have >= s.Number {
		return false, err
	}
	if schema != "" {
		ident := pgx.Identifier{schema}.Sanitize()
		if s.Number == 1 {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+ident); err != nil {
				return false, err
			}
		}
		if _, err := tx.Exec(ctx, "SELECT set_config('search_path', $1, true)", ident); err != nil {
			return false, err
		}
	}
	if _, err := tx.Exec(ctx, s.Up); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

// lockKey is the advisory lock that serialises Migrate on one schema ($1,
// or the search_path's first for "").
const lockKey = "hashtextextended('idemgen schema ' || coalesce(nullif($1, ''), current_schema(), ''), 0)"

// boundLockWaits sets lockTimeout for the rest of tx.
func boundLockWaits(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT set_config('lock_timeout', $1, true)", lockTimeout)
	return err
}

// retryable reports whether err is a lock wait that timed out or lost a
// deadlock, which a later attempt can get past.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "55P03", "40P01", "40001": // lock_not_available, deadlock_detected, serialization_failure
		return true
	}
	return false
}
