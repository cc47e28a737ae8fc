package core_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
)

// currentStep reads the message's ledger row as it is now: the current
// representation of what book created, or ErrResourceGone without it.
// calls counts the reads.
func currentStep(m message, calls *atomic.Int32) core.CurrentFunc {
	return func(ctx context.Context, tx pgx.Tx, stored core.Stored) (core.Outcome, error) {
		calls.Add(1)
		var step string
		err := tx.QueryRow(ctx, `SELECT step FROM ledger WHERE message_id = $1`, m.ID).Scan(&step)
		if errors.Is(err, pgx.ErrNoRows) {
			return core.Outcome{}, core.ErrResourceGone
		}
		if err != nil {
			return core.Outcome{}, err
		}
		return core.Outcome{Code: stored.Outcome.Code, Meta: stored.Outcome.Meta, Body: []byte(step + " " + m.ID)}, nil
	}
}

// handleCurrent runs step for m as handle does, under replay: current
// with current.
func (c *consumer) handleCurrent(ctx context.Context, m message, step core.Func, current core.CurrentFunc) (*core.Result, error) {
	return core.Execute(ctx, c.exec, core.Attempt{Policy: c.policy, Scope: m.Source, Key: m.ID,
		Fingerprint: fingerprint.Sum(sha256.Sum256(m.Body)), Current: current}, step)
}

// Under replay: current a replay of a completed operation answers what
// the Current hook reads now, in either protocol: a change made to the
// resource after the first answer shows in the next replay, while a
// replay of the same record without the hook (replay: stored) still gets
// the stored answer, unchanged. A different request under the key is
// refused before the hook runs; a resource that is gone is
// ErrResourceGone with the operation's id; the hook's transaction is
// read-only.
func TestReplayCurrentAnswersTheResourceAsItIsNow(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, 0)
		var calls, reads atomic.Int32
		m := message{Source: "acme", ID: "msg-1", Body: []byte(`{"amount":1}`)}
		first, err := c.handleCurrent(t.Context(), m, book(m, &calls), currentStep(m, &reads))
		if err != nil || first.Replayed || string(first.Outcome.Body) != "booked msg-1" || reads.Load() != 0 {
			t.Fatalf("first: %+v, %v (hook read %d times)", first, err, reads.Load())
		}
		replay, err := c.handleCurrent(t.Context(), m, book(m, &calls), currentStep(m, &reads))
		if err != nil || !replay.Replayed || !replay.Current || replay.OperationID != first.OperationID || string(replay.Outcome.Body) != "booked msg-1" {
			t.Fatalf("replay before the change: %+v, %v", replay, err)
		}
		if _, err := pool.Exec(t.Context(), `UPDATE ledger SET step = 'shipped' WHERE message_id = $1`, m.ID); err != nil {
			t.Fatal(err)
		}
		replay, err = c.handleCurrent(t.Context(), m, book(m, &calls), currentStep(m, &reads))
		if err != nil || !replay.Replayed || string(replay.Outcome.Body) != "shipped msg-1" || replay.Outcome.Code != first.Outcome.Code {
			t.Fatalf("replay after the change: %+v, %v; want the resource as it is now", replay, err)
		}
		stored, err := c.handle(t.Context(), m, book(m, &calls))
		if err != nil || !stored.Replayed || stored.Current || string(stored.Outcome.Body) != "booked msg-1" {
			t.Fatalf("replay of the same record under replay: stored: %+v, %v; want the first answer, kept", stored, err)
		}

		changed := m
		changed.Body = []byte(`{"amount":2}`)
		before := reads.Load()
		if _, err := c.handleCurrent(t.Context(), changed, book(changed, &calls), currentStep(changed, &reads)); !errors.Is(err, core.ErrFingerprintMismatch) {
			t.Errorf("a different request under the key: %v, want a fingerprint conflict", err)
		}
		if reads.Load() != before {
			t.Error("the hook ran for a request whose fingerprint differs")
		}

		writes := func(ctx context.Context, tx pgx.Tx, _ core.Stored) (core.Outcome, error) {
			_, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step) VALUES ('sneaky', 'booked')`)
			return core.Outcome{Code: 1}, err
		}
		if _, err := c.handleCurrent(t.Context(), m, book(m, &calls), writes); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("a hook that writes: %v, want the read-only transaction's refusal", err)
		}

		if _, err := pool.Exec(t.Context(), `DELETE FROM ledger WHERE message_id = $1`, m.ID); err != nil {
			t.Fatal(err)
		}
		_, err = c.handleCurrent(t.Context(), m, book(m, &calls), currentStep(m, &reads))
		var ref *core.RefusalError
		if !errors.Is(err, core.ErrResourceGone) || !errors.As(err, &ref) || ref.OperationID != first.OperationID {
			t.Errorf("replay of an operation whose resource is gone: %v, want ErrResourceGone with operation %s", err, first.OperationID)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("the business ran %d times, want once", n)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger`); n != 0 {
			t.Errorf("%d ledger rows after the delete, want none (nothing a replay ran was kept)", n)
		}
	})
}

// The replay cache never answers an attempt under replay: current: after
// a replay: stored attempt cached the record, a current one still reads
// the record and runs the hook, so it sees a change made after the first
// answer; once the executor can reach no database, the stored replay is
// still answered from the cache while the current one fails.
func TestReplayCacheDoesNotAnswerReplayCurrent(t *testing.T) {
	c, pool, cs := newConsumer(t, core.ProtocolAdvisory, 0)
	cachedPool := openPool(t, cs)
	cached, err := core.New(core.Config{Pool: cachedPool, Protocol: core.ProtocolAdvisory})
	if err != nil {
		t.Fatal(err)
	}
	h := &consumer{exec: cached, policy: c.policy}
	var calls, reads atomic.Int32
	m := message{Source: "acme", ID: "msg-1", Body: []byte(`{"amount":1}`)}
	if _, err := h.handleCurrent(t.Context(), m, book(m, &calls), currentStep(m, &reads)); err != nil {
		t.Fatal(err)
	}
	if res, err := h.handle(t.Context(), m, book(m, &calls)); err != nil || string(res.Outcome.Body) != "booked msg-1" {
		t.Fatalf("stored replay (caches the record): %+v, %v", res, err)
	}
	if _, err := pool.Exec(t.Context(), `UPDATE ledger SET step = 'shipped' WHERE message_id = $1`, m.ID); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		res, err := h.handleCurrent(t.Context(), m, book(m, &calls), currentStep(m, &reads))
		if err != nil || !res.Current || string(res.Outcome.Body) != "shipped msg-1" {
			t.Fatalf("current replay %d after the change: %+v, %v; want the hook's answer, not the cached one", i, res, err)
		}
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("the hook ran %d times for two current replays, want 2", n)
	}

	cachedPool.Close()
	if res, err := h.handle(t.Context(), m, book(m, &calls)); err != nil || string(res.Outcome.Body) != "booked msg-1" {
		t.Errorf("stored replay without a database: %+v, %v; want the cached first answer", res, err)
	}
	if res, err := h.handleCurrent(t.Context(), m, book(m, &calls), currentStep(m, &reads)); err == nil {
		t.Errorf("current replay without a database: %+v; want an error, never the cached answer", res)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the business ran %d times, want once", n)
	}
}
