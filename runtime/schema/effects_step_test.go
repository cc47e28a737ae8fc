package schema_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// doneProvider answers done.
type doneProvider chan string

func (p doneProvider) Do(_ context.Context, c idem.EffectCall) idem.EffectOutcome {
	p <- c.Key
	return idem.EffectDone()
}

// An effect that v0.1.0 enqueued (and nothing executed) survives step 3
// and is executed by the worker once the schema is migrated; step 3's
// state CHECK holds for new writes.
func TestStep3KeepsTheEffectsV010Enqueued(t *testing.T) {
	ctx := t.Context()
	pool := openPool(t, pgtest.Database(t), 4) // its own database: the released schema has a fixed name
	schema.ApplyReleased(t, pool)
	const key = "55555555-5555-4555-8555-555555555555/confirmation_email/1"
	if _, err := pool.Exec(ctx, `INSERT INTO idempotency.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown,
    payload, available_at, created_at) VALUES ('acme', '55555555-5555-4555-8555-555555555555', 1, 'confirmation_email', $1, 'retry',
    '{}', now(), now())`, key); err != nil {
		t.Fatal(err)
	}
	if err := schema.Migrate(ctx, pool, schema.ReleasedSchema); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE idempotency.idempotency_outbox SET state = 'halted'`); err == nil ||
		!strings.Contains(err.Error(), "idempotency_outbox_state_check") {
		t.Errorf("writing v0.1.0's unused state halted after step 3: %v, want the state CHECK to refuse", err)
	}
	called := make(doneProvider, 1)
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Schema: schema.ReleasedSchema,
		Providers: map[string]idem.Provider{"confirmation_email": called}, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(runCtx) }()
	if got := <-called; got != key {
		t.Errorf("the provider got key %q, want %q", got, key)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	var state string
	if err := pool.QueryRow(ctx, `SELECT state FROM idempotency.idempotency_outbox`).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if state != "done" {
		t.Errorf("state %s, want done", state)
	}
}
