package inbox_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
)

// TestInboxTimesAreTheDatabases: a consumer whose host clock is 73 h
// ahead or behind the database's (longer than the 72 h retention) keeps
// the inbox's times on the database's now(): a redelivery is still a
// duplicate, a sweep deletes nothing early, and retention ends 72 h after
// the database's processing time, not the host's. A failed attempt's
// times are the database's too.
func TestInboxTimesAreTheDatabases(t *testing.T) {
	for _, skew := range []time.Duration{73 * time.Hour, -73 * time.Hour} {
		t.Run(fmt.Sprint(skew), func(t *testing.T) {
			cs := newDB(t)
			e, err := core.New(core.Config{Pool: newPool(t, cs), Clock: idemtest.NewFakeClock(time.Now().Add(skew))})
			if err != nil {
				t.Fatal(err)
			}
			c, err := inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: 3, Retention: 72 * time.Hour,
				Handler: func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
					if m.ID == "poison" {
						return errPoison
					}
					return settle(ctx, tx, op, m)
				}})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"msg_1", "poison"} {
				if _, err := c.Deliver(t.Context(), msg(id, `{}`)); err != nil {
					t.Fatal(err)
				}
			}
			res, err := core.Sweep(t.Context(), e, core.MaintainOptions{MaxClockSkew: math.MaxInt64})
			if err != nil {
				t.Fatal(err)
			}
			if res.MessagesDeleted != 0 {
				t.Errorf("the sweep deleted %d messages, want none within retention", res.MessagesDeleted)
			}
			again, err := c.Deliver(t.Context(), msg("msg_1", `{}`))
			if err != nil || again.Outcome != inbox.Duplicate {
				t.Errorf("redelivery: %+v, %v; want a duplicate", again, err)
			}
			if settled, effects, _ := counts(t, cs); settled != 1 || effects != 1 {
				t.Errorf("settled %d, effects %d; want 1 each", settled, effects)
			}
			assertDatabaseTimes(t, cs)
		})
	}
}

// assertDatabaseTimes checks that every inbox row's times are within a
// minute of the database's now() and that the processed message's
// retention ends 72 h after it was processed.
func assertDatabaseTimes(t *testing.T, cs string) {
	t.Helper()
	rows, err := newPool(t, cs).Query(t.Context(), `
		SELECT message_id,
		       abs(extract(epoch FROM now() - received_at)) < 60,
		       abs(extract(epoch FROM now() - updated_at)) < 60,
		       processed_at IS NULL OR abs(extract(epoch FROM now() - processed_at)) < 60,
		       coalesce(expires_at - processed_at = interval '72 hours', expires_at IS NULL AND processed_at IS NULL)
		FROM idempotency_inbox ORDER BY message_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var received, updated, processed, retention bool
		if err := rows.Scan(&id, &received, &updated, &processed, &retention); err != nil {
			t.Fatal(err)
		}
		n++
		if !received || !updated || !processed || !retention {
			t.Errorf("%s: on the database's clock: received_at %v, updated_at %v, processed_at %v, expires_at 72 h after %v",
				id, received, updated, processed, retention)
		}
	}
	if err := rows.Err(); err != nil || n != 2 {
		t.Fatalf("inbox rows: %d, %v; want 2", n, err)
	}
}
