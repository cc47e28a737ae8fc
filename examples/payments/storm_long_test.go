//go:build long

package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// The storm's load. None of it is a verdict: the kills land wherever the
// payments are, and the assertions hold for any interleaving.
const (
	stormPayments  = 500              // payments retried by their clients to a final answer
	stormCopies    = 3                // concurrent copies of each payment's request
	stormAbandoned = 50               // payments sent once and never retried: the completer's
	stormInFlight  = 48               // payments whose copies are in flight at once
	stormKillEvery = 3 * time.Second  // the ticker that SIGKILLs the service
	stormIdleBound = 3 * time.Minute  // how long the completer may take to finish the abandoned ones
	stormLost      = 20               // bank charges whose connection drops after the charge (verify)
	stormMaintain  = 1 * time.Second  // the service's completer interval
	stormBound     = 8 * time.Minute  // the clients give up past it: something is stuck
	stormClientTTL = 30 * time.Second // one request's client time-out, a give-up, then a retry
)

// Must show 7 of issue 20: the example end to end. 500 payments, each
// sent as 3 concurrent copies of one request (one key), against the
// service, a child process that is SIGKILLed every few seconds and
// started again, while its clients retry to a final answer; 50 more are
// sent once and abandoned. The bank, another child process, records every
// request it receives. Then: every copy of a payment got the same final
// answer; the bank acted at most once per key and on exactly one key per
// payment, once for every approved one; and once the completer is idle,
// no operation is left in progress.
func TestPaymentStormSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example and the bank as child processes")
	}
	began := time.Now()
	dir := t.TempDir()
	serviceBin, bankBin := filepath.Join(dir, "payments"), filepath.Join(dir, "bank")
	// The service under the race detector too: its runtime's goroutines
	// (requests, waiting duplicates, the completer) meet under the kills.
	for bin, build := range map[string][]string{serviceBin: {"-race", "."}, bankBin: {"./bank"}} {
		pkg := build[len(build)-1]
		if out, err := exec.Command("go", append([]string{"build", "-o", bin}, build...)...).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	serviceDB, bankDB := pgtest.Database(t), pgtest.Database(t)
	logs := filepath.Join(dir, "children.log")
	bankAddr := freeAddr(t)
	mustStart(t, logs, bankDB, "/charges/none", bankBin, "-addr", bankAddr)
	setBankBehaviour(t, bankAddr, fmt.Sprintf(`{"mode":"lost","count":%d}`, stormLost))

	addr := freeAddr(t)
	serviceArgs := []string{"-addr", addr, "-bank-url", "http://" + bankAddr, "-maintain-interval", stormMaintain.String()}
	service := mustStart(t, logs, serviceDB, "/payments", serviceBin, serviceArgs...)

	// The killer: a ticker is load, not ordering. It stops once every
	// client has its final answer; the service it started last stays.
	// The clients give up when the killer cannot start the service again,
	// or past stormBound: a liveness bound, which a run reaches only when
	// something is stuck.
	ctx, giveUp := context.WithTimeout(t.Context(), stormBound)
	defer giveUp()
	clientsDone := make(chan struct{})
	killerDone := make(chan struct{})
	var kills int
	var killerErr error
	go func() {
		defer close(killerDone)
		defer func() {
			if killerErr != nil {
				giveUp()
			}
		}()
		tick := time.NewTicker(stormKillEvery)
		defer tick.Stop()
		for {
			select {
			case <-clientsDone:
				return
			case <-tick.C:
			}
			if killerErr = service.kill(); killerErr != nil {
				return
			}
			kills++
			if service, killerErr = startProcess(t, logs, serviceDB, "/payments", serviceBin, serviceArgs...); killerErr != nil {
				return
			}
		}
	}()

	c := newStormClient()
	answers := make([][stormCopies]stormAnswer, stormPayments)
	abandoned := make([]stormAnswer, stormAbandoned)
	slots := make(chan struct{}, stormInFlight)
	var wg sync.WaitGroup
	for i := range stormPayments {
		slots <- struct{}{}
		start := make(chan struct{}) // the copies leave together
		var copies sync.WaitGroup
		for k := range stormCopies {
			copies.Go(func() {
				<-start
				answers[i][k] = c.untilFinal(ctx, addr, stormPayment(i))
			})
		}
		close(start)
		wg.Go(func() {
			copies.Wait()
			<-slots
		})
		if i%(stormPayments/stormAbandoned) == 0 {
			wg.Go(func() { abandoned[i/(stormPayments/stormAbandoned)] = c.once(addr, stormPayment(stormPayments+i)) })
		}
	}
	wg.Wait()
	close(clientsDone)
	<-killerDone
	stormed := time.Since(began)
	if killerErr != nil {
		t.Fatalf("after %d kills: %v", kills, killerErr)
	}

	pool, err := pgxpool.New(t.Context(), serviceDB)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	bank, err := pgxpool.New(t.Context(), bankDB)
	if err != nil {
		t.Fatal(err)
	}
	defer bank.Close()

	// The abandoned payments have no client: the completer finishes those
	// a kill left in progress once their lease runs out. Then a retry of
	// each gets its final answer (stored, or a first execution for one
	// that the kill cut before its first recovery point).
	waitCompleterIdle(t, pool)
	answeredFirst, cut := 0, map[string]int{} // the record states of those cut by a kill

	for j, first := range abandoned {
		p := stormPayment(stormPayments + j*(stormPayments/stormAbandoned))
		if first.final {
			answeredFirst++
		} else {
			cut[cmp.Or(stormRecordState(t, pool, p), "no record")]++
		}
		a := c.untilFinal(ctx, addr, p)
		if first.final && a != first {
			t.Errorf("abandoned %s: first answer %+v, retry %+v", p.key, first, a)
		}
		abandoned[j] = a
	}

	// Every copy of a payment got the same final answer, the one the
	// bank's rule gives.
	paymentOf := map[int64]stormPaymentSpec{}
	status := map[int64]string{}
	check := func(p stormPaymentSpec, a stormAnswer) {
		if a.status != http.StatusCreated {
			t.Errorf("%s: final answer %d %s, want 201", p.key, a.status, a.body)
			return
		}
		if want := p.wantStatus(); a.payment.Status != want {
			t.Errorf("%s: %s, want %s", p.key, a.payment.Status, want)
		}
		if other, ok := paymentOf[a.payment.ID]; ok {
			t.Errorf("payment %d answered to %s and %s", a.payment.ID, other.key, p.key)
		}
		paymentOf[a.payment.ID], status[a.payment.ID] = p, a.payment.Status
	}
	for i, copies := range answers {
		for k := 1; k < stormCopies; k++ {
			if copies[k] != copies[0] {
				t.Errorf("%s: copy 0 answered %+v, copy %d %+v", stormPayment(i).key, copies[0], k, copies[k])
			}
		}
		check(stormPayment(i), copies[0])
	}
	for j, a := range abandoned {
		check(stormPayment(stormPayments+j*(stormPayments/stormAbandoned)), a)
	}

	// The service's payments are those answered, each decided as
	// answered, with the bank's charge.
	charges := map[int64]int64{} // payment id → the bank's charge id
	rows, err := pool.Query(t.Context(), `SELECT id, status, coalesce(charge_id, 0) FROM payments`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, charge int64
		var st string
		if err := rows.Scan(&id, &st, &charge); err != nil {
			t.Fatal(err)
		}
		if want, ok := status[id]; !ok || st != want || charge == 0 {
			t.Errorf("payment %d: %s, charge %d; answered %q", id, st, charge, want)
		}
		charges[id] = charge
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := stormPayments + stormAbandoned
	if len(charges) != want || len(paymentOf) != want {
		t.Errorf("%d payments recorded, %d answered; want %d of each (one per key)", len(charges), len(paymentOf), want)
	}

	// The bank acted at most once per key, and each payment's charge is
	// one key's only act: as many keys acted on as payments, each
	// payment's charge a different one.
	acted := stormBankActs(t, bank)
	keyOf := map[int64]string{}
	for key, a := range acted {
		if a.acted > 1 {
			t.Errorf("the bank acted %d times on key %s", a.acted, key)
		}
		keyOf[a.chargeID] = key
	}
	approved, declined := 0, 0
	for id, charge := range charges {
		key, ok := keyOf[charge]
		switch {
		case !ok:
			t.Errorf("payment %d (%s): charge %d, which the bank never made", id, paymentOf[id].key, charge)
		case acted[key].acted != 1:
			t.Errorf("payment %d (%s, %s): the bank acted %d times on its key", id, paymentOf[id].key, status[id], acted[key].acted)
		case status[id] == "approved":
			approved++
		default:
			declined++
		}
	}
	if len(acted) != len(charges) {
		t.Errorf("the bank acted on %d keys for %d payments: a payment charged under another key", len(acted), len(charges))
	}

	// Nothing left in progress: every record completed, no progress row.
	var records, completed, inProgress int
	if err := pool.QueryRow(t.Context(), `SELECT count(*), count(*) FILTER (WHERE state = 'completed'),
		(SELECT count(*) FROM idempotency.idempotency_progress) FROM idempotency.idempotency_record`).Scan(&records, &completed, &inProgress); err != nil {
		t.Fatal(err)
	}
	if records != want || completed != want || inProgress != 0 {
		t.Errorf("%d records, %d completed, %d in progress or requires_recovery; want %d, %d, 0", records, completed, want, want, inProgress)
	}

	requests, duplicates := 0, 0
	for _, a := range acted {
		requests += a.requests
		duplicates += a.requests - a.acted
	}
	t.Logf("%d payments × %d copies + %d abandoned (%d answered before a kill, the records of those cut once the completer was idle: %v), %d SIGKILLs every %v, "+
		"%d requests of which %d retries (statuses %v), %d payments approved and %d declined; the bank received %d charges "+
		"on %d keys, acted on each once, %d duplicates; the completer drove %d operations; storm %v, total %v",
		stormPayments, stormCopies, stormAbandoned, answeredFirst, cut, kills, stormKillEvery,
		c.requests.Load(), c.retries.Load(), c.statuses(), approved, declined, requests, len(acted), duplicates,
		completerDrove(t, logs), stormed.Round(time.Second), time.Since(began).Round(time.Second))
}

// stormPaymentSpec is one payment of the storm: its key, merchant and
// body.
type stormPaymentSpec struct {
	key, merchant, card string
	amount              int64
}

// stormPayment is payment n: every seventh card is declined.
func stormPayment(n int) stormPaymentSpec {
	card := "tok_storm_" + strconv.Itoa(n)
	if n%7 == 0 {
		card = "tok_declined"
	}
	return stormPaymentSpec{key: fmt.Sprintf("storm-%d", n), merchant: fmt.Sprintf("merchant-%d", n%5), card: card, amount: int64(100 + n)}
}

// wantStatus is the bank's decision for the payment.
func (p stormPaymentSpec) wantStatus() string {
	if p.card == "tok_declined" {
		return "declined"
	}
	return "approved"
}

// stormRecordState is the state of p's idempotency record, "" for none.
func stormRecordState(t *testing.T, pool *pgxpool.Pool, p stormPaymentSpec) string {
	t.Helper()
	var state string
	err := pool.QueryRow(t.Context(), `SELECT coalesce(max(state), '') FROM idempotency.idempotency_record
		WHERE scope = $1 AND idempotency_key = $2`, p.merchant, p.key).Scan(&state)
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// waitCompleterIdle waits until no operation is in progress after a
// checkpoint, which the completer ends once each one's lease has run
// out; it fails the test past stormIdleBound.
func waitCompleterIdle(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stormIdleBound)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM idempotency.idempotency_progress`).Scan(&n)
		if err == nil && n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d operations still in progress after %v: %v", n, stormIdleBound, err)
		case <-tick.C:
		}
	}
}

// bankKey is what the bank did with one key: how many requests it
// received, how many it acted on, and its charge.
type bankKey struct {
	requests, acted int
	chargeID        int64
}

// stormBankActs reads bank_charges and bank_decisions by key.
func stormBankActs(t *testing.T, bank *pgxpool.Pool) map[string]bankKey {
	t.Helper()
	rows, err := bank.Query(t.Context(), `SELECT c.idempotency_key, count(*), count(*) FILTER (WHERE c.acted AND NOT c.duplicate),
		coalesce(max(d.charge_id), 0) FROM bank_charges c LEFT JOIN bank_decisions d USING (idempotency_key) GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]bankKey{}
	for rows.Next() {
		var key string
		var k bankKey
		if err := rows.Scan(&key, &k.requests, &k.acted, &k.chargeID); err != nil {
			t.Fatal(err)
		}
		m[key] = k
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// completerDrove sums the operations the services' completers reported
// completing, from their logs.
func completerDrove(t *testing.T, logs string) int {
	t.Helper()
	b, err := os.ReadFile(logs)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range regexp.MustCompile(`msg="idempotency completer" completed=(\d+)`).FindAllSubmatch(b, -1) {
		v, _ := strconv.Atoi(string(m[1]))
		n += v
	}
	return n
}
