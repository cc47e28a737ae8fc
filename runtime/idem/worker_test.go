package idem_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// createOrderWithEmail is createOrder that also enqueues the order's
// confirmation email.
func createOrderWithEmail(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
	resp, err := createOrder(ctx, tx, op, req)
	if err != nil || resp.Status >= 300 {
		return resp, err
	}
	if _, err := op.Enqueue(ctx, tx, idemimpl.Effect{Name: "confirmation_email", OnUnknown: "retry", Payload: req.Body}); err != nil {
		return nil, err
	}
	return resp, nil
}

// emailProvider keeps the effect keys it was called with.
type emailProvider struct {
	mu   sync.Mutex
	keys []string
	done chan struct{}
}

func (p *emailProvider) Do(_ context.Context, c idem.EffectCall) idem.EffectOutcome {
	p.mu.Lock()
	p.keys = append(p.keys, c.Key)
	p.mu.Unlock()
	p.done <- struct{}{}
	return idem.EffectDone()
}

// An operation that enqueued an effect reports EventEffectEnqueued after
// EventNew, a replay and a stored failure report none; the worker then runs
// the effect once under its key, and the operation's replay is what it was.
func TestTheWorkerRunsACommittedOperationsEffectOnce(t *testing.T) {
	d := newDB(t)
	rec := &recorder{}
	h := newHandler(t, d.pool, orderContract(), idem.Config{Observer: rec}, createOrderWithEmail)
	first := post(h, "t1", "k1", `{"customer":"ann","amount":5}`)
	if first.Status != http.StatusCreated {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	_ = post(h, "t1", "k1", `{"customer":"ann","amount":5}`)
	_ = post(h, "t1", "k2", `{"customer":"bob","amount":-1}`)
	want := []idem.EventKind{idem.EventNew, idem.EventEffectEnqueued, idem.EventReplay, idem.EventNew}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if ev := rec.events[1]; ev.Operation != "createOrder" || ev.Effect != "confirmation_email" {
		t.Errorf("enqueued event %+v, want createOrder's confirmation_email", ev)
	}

	p := &emailProvider{done: make(chan struct{}, 1)}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: d.pool, Providers: map[string]idem.Provider{"confirmation_email": p},
		PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	<-p.done
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	var opID string
	if err := d.pool.QueryRow(t.Context(), "SELECT operation_id::text FROM idempotency_record WHERE idempotency_key = 'k1'").Scan(&opID); err != nil {
		t.Fatal(err)
	}
	if want := []string{opID + "/confirmation_email/1"}; !slices.Equal(p.keys, want) {
		t.Errorf("provider called with %q, want %q", p.keys, want)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_outbox WHERE state = 'done'"); n != 1 {
		t.Errorf("%d effects done, want 1", n)
	}
	replay := post(h, "t1", "k1", `{"customer":"ann","amount":5}`)
	if replay.Status != first.Status || string(replay.Body) != string(first.Body) {
		t.Errorf("replay after the effect ran: %d %s, want the first response %d %s", replay.Status, replay.Body, first.Status, first.Body)
	}
}
