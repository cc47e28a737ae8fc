package api

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// abandonPoints are the points where an abandoned payment can be left:
// every one between the commit of its first recovery point and the
// commit of its answer. (A process killed before that commit leaves
// nothing: the key's claim commits with record_payment.)
var abandonPoints = []string{stopRecorded, stopBeforeBank, stopBankActed, stopChargeReturned, stopOutcomeUnsaved}

// abandonBatch is how many payments one service process abandons before
// it is killed: each holds a pool connection while it blocks.
const abandonBatch = 25

// Must show 3, at the default size: see completeAbandoned.
func TestCompletersFinishAbandonedPayments(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the service and the bank as processes")
	}
	completeAbandoned(t, 50)
}

// completeAbandoned proves must show 3 with n payments. Service processes
// abandon them, each at a point chosen at random (abandonPoints), and are
// killed with SIGKILL there; no client retries. Two more processes run
// the completer (the executor's Maintain) at once, against one bank
// behind a recording front, and the test lets the abandoned leases run
// out. Once both have driven payments for a while, the front holds the
// request a completer makes to verify the next to last payment taken
// over, until the other completer has finished every other payment: the
// other never asked the bank about the held payment, though it ran again
// and again while the holder was paused. (Unless the holder gave the call
// up first, after the step's 10 s timeout: then the operation was free to
// take over, and the test says so instead.)
// Then every payment is completed, with its answer stored, and:
//
//   - the bank acted on it exactly once, and saw no duplicate request:
//     a completer asks the bank (verify) before it charges, so two
//     completers driving one payment at once would both find it not yet
//     charged and charge twice;
//   - the front never had two requests for one payment's key in flight at
//     once, from any process;
//   - its payment row holds the bank's decision, and a later retry
//     replays an answer that says the same.
func completeAbandoned(t *testing.T, n int) {
	db := newPaymentsDB(t)
	front, frontURL := newBankFront(t, startBank(t, db))
	keys := make([]string, n)
	amounts := make([]int64, n)
	at := map[string]int{} // abandoned payments by point
	for i := range n {
		keys[i] = fmt.Sprintf("abandoned-%d", i)
		amounts[i] = int64(5000 + i)
		if i%3 == 0 {
			amounts[i] += 100000 // declined
		}
	}
	for start := 0; start < n; start += abandonBatch {
		end := min(start+abandonBatch, n)
		p := startService(t, serviceConfig{Database: db.url, BankURL: frontURL, Name: fmt.Sprintf("abandoner-%d", start),
			MaxConns: abandonBatch + 2})
		var answered sync.WaitGroup
		for i := start; i < end; i++ {
			point := abandonPoints[rand.IntN(len(abandonPoints))]
			at[point]++
			answered.Go(func() {
				if a, err := p.pay(t.Context(), keys[i], amounts[i], stopAt(point)); err == nil {
					t.Errorf("payment %s, stopped at %s, answered %d %s", keys[i], point, a.Status, a.Body)
				}
			})
		}
		p.waitSaid(t, end-start)
		p.kill()
		answered.Wait()
	}
	if got := db.count(t, `SELECT count(*) FROM idempotency.idempotency_record r JOIN idempotency.idempotency_progress p USING (scope, idempotency_key)
WHERE r.state = 'in_progress'`); got != n {
		t.Fatalf("%d payments in progress after the kills, want %d", got, n)
	}
	t.Logf("abandoned %d payments: %v", n, at)

	completers := []string{"completer-a", "completer-b"}
	held, release := front.hold(http.MethodGet, n-1) // a takeover verifies first: one lookup per payment
	t.Cleanup(release)
	for _, name := range completers {
		startService(t, serviceConfig{Database: db.url, BankURL: frontURL, Name: name, Completer: true})
	}
	db.endLeases(t, keys...)
	inProgress := func() int {
		return db.count(t, `SELECT count(*) FROM idempotency.idempotency_record WHERE state = 'in_progress'`)
	}
	<-held
	waitFor(t, "the other completer finishing every other payment", func() bool { return inProgress() <= 1 })
	front.mu.Lock()
	paused, gaveUp := front.heldRequest, front.heldGaveUp
	front.mu.Unlock()
	for _, name := range completers {
		got := front.requests(name, paused.Key)
		switch {
		case name == paused.Process || len(got) == 0:
		case gaveUp:
			t.Logf("%s gave its held call up after the step's timeout; %s then took the payment over", paused.Process, name)
		default:
			t.Errorf("%s asked the bank about the payment %s holds: %v", name, paused.Process, got)
		}
	}
	release()
	waitFor(t, "the completers finishing every payment", func() bool { return inProgress() == 0 })

	if got := db.count(t, `SELECT count(*) FROM idempotency.idempotency_record WHERE state = 'completed' AND response_status = 201`); got != n {
		t.Errorf("%d payments completed with a 201, want %d", got, n)
	}
	if got := db.count(t, `SELECT count(*) FROM idempotency.idempotency_progress`); got != 0 {
		t.Errorf("%d operations left in progress", got)
	}
	var wrong []string
	rows, err := db.pool.Query(t.Context(), `SELECT p.amount, count(*) FILTER (WHERE c.acted AND NOT c.duplicate), count(*) FILTER (WHERE c.duplicate)
FROM payments p LEFT JOIN bank_charges c USING (amount) GROUP BY p.amount HAVING count(*) FILTER (WHERE c.acted AND NOT c.duplicate) <> 1
  OR count(*) FILTER (WHERE c.duplicate) <> 0 OR count(DISTINCT p.id) <> 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var amount int64
		var acted, dups int
		if err := rows.Scan(&amount, &acted, &dups); err != nil {
			t.Fatal(err)
		}
		wrong = append(wrong, fmt.Sprintf("amount %d: acted %d, duplicates %d", amount, acted, dups))
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if len(wrong) > 0 {
		t.Errorf("payments not charged exactly once:\n%s", strings.Join(wrong, "\n"))
	}
	if got := db.count(t, `SELECT count(*) FROM payments`); got != n {
		t.Errorf("%d payments recorded, want %d", got, n)
	}
	front.mu.Lock()
	overlaps := len(front.overlaps)
	front.mu.Unlock()
	if overlaps != 0 {
		t.Errorf("%d payments had two bank requests in flight at once: %v", overlaps, front.overlaps)
	}
	for _, name := range completers {
		t.Logf("%s sent the bank %d requests", name, len(front.requests(name, "")))
	}

	replays := startService(t, serviceConfig{Database: db.url, BankURL: frontURL, Name: "retries"})
	for i, key := range keys {
		a, err := replays.pay(t.Context(), key, amounts[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Replayed {
			t.Errorf("the retry of %s was not a replay: %d %s", key, a.Status, a.Body)
		}
		wantDecided(t, db, key, amounts[i], a)
	}
	if asked := front.requests("retries", ""); len(asked) != 0 {
		t.Errorf("the retries asked the bank %d times, want none", len(asked))
	}
}
