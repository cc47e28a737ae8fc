package outbox_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// Leases and due times are the database's: a worker whose clock runs 2
// minutes or 73 hours ahead does not take over an effect another worker
// still executes (on its own clock that lease has long run out). The
// proof that it looked: it claims and executes an effect enqueued after it
// started, in a claim that would have taken the held one too; the held
// effect is then recorded once, by its holder, under its first token.
func TestAWorkerWhoseClockRunsAheadTakesNothingOver(t *testing.T) {
	for _, ahead := range []time.Duration{2 * time.Minute, 73 * time.Hour} {
		t.Run(ahead.String(), func(t *testing.T) {
			_, pool := newDB(t)
			enqueueNamed(t, pool, "email", 1, "verify")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			held := &heldProvider{called: make(chan string, 1), release: make(chan struct{})}
			aDone := observer{kind: idem.EffectEventDone, ch: make(chan idem.EffectEvent, 1)}
			a, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "a", Providers: map[string]idem.Provider{"email": held},
				Lease: time.Minute, PollInterval: 10 * time.Millisecond, Observer: aDone})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			defer func() { cancel(); wg.Wait() }()
			wg.Go(func() { _ = a.Run(ctx) })
			<-held.called // a executes the email effect under a one-minute lease

			bCalls := &heldProvider{called: make(chan string, 4), release: make(chan struct{})}
			close(bCalls.release)
			b, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "b", Clock: idemtest.SkewedClock(ahead),
				Providers: map[string]idem.Provider{"email": bCalls, "sms": bCalls}, PollInterval: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() { _ = b.Run(ctx) })
			enqueueNamed(t, pool, "sms", 1, "retry")
			first := <-bCalls.called // b's first call: the sms effect, not a's email
			var smsKey string
			if err := pool.QueryRow(t.Context(), `SELECT effect_key FROM idempotency_outbox WHERE effect = 'sms'`).Scan(&smsKey); err != nil {
				t.Fatal(err)
			}
			if first != smsKey {
				t.Fatalf("b's first call was %s, want the sms effect %s: it took a's email over", first, smsKey)
			}

			close(held.release)
			<-aDone.ch
			cancel()
			wg.Wait()
			select {
			case key := <-bCalls.called:
				t.Errorf("b called %s as well", key)
			default:
			}
			var state, leasedBy string
			var token int64
			if err := pool.QueryRow(t.Context(), `SELECT state, leased_by, fencing_token FROM idempotency_outbox WHERE effect = 'email'`).
				Scan(&state, &leasedBy, &token); err != nil {
				t.Fatal(err)
			}
			if state != "done" || leasedBy != "a" || token != 1 {
				t.Errorf("email %s, leased by %s under token %d; want done by a under 1", state, leasedBy, token)
			}
		})
	}
}
