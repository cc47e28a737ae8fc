package api

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// crashPoint is a point where a service process is killed, and what the
// killed attempt had done there.
type crashPoint struct {
	name string
	// claimed: the key's claim (with record_payment) committed.
	claimed bool
	// charged: the charge request reached the bank, which acted.
	charged bool
	// stored: the answer is committed.
	stored bool
}

// crashPoints are the stops of the child process in the order an attempt
// passes them (see the stop constants). The charge's outcome is recorded
// in record_outcome's transaction, with the answer: the boundary after it
// is answer_stored, and the one before it outcome_unsaved.
var crashPoints = []crashPoint{
	{name: stopRecordUnsaved},
	{name: stopRecorded, claimed: true},
	{name: stopBeforeBank, claimed: true},
	{name: stopBankActed, claimed: true, charged: true},
	{name: stopChargeReturned, claimed: true, charged: true},
	{name: stopOutcomeUnsaved, claimed: true, charged: true},
	{name: stopAnswerStored, claimed: true, charged: true, stored: true},
}

// Must show 1. A service process is killed with SIGKILL at each boundary
// between the steps of POST /payments and inside the charge's call to the
// bank (before the request reaches it; after it acted, before its answer
// is recorded); then the client retries the key three times against a
// fresh service process. The kill is exact, without sleeps: the killed
// process blocks its attempt at the point (a stop its request asks for,
// see process_child_test.go), says so, and the test kills it then. The
// bank is the simulator (../bank, a process of its own), behind a front
// that logs which process asked it what.
//
// Under each on-unknown policy of the charge step, at every point: the
// bank acts on the payment at most once (bank_charges: one row neither
// refused nor a duplicate), every retry gets the same answer, and the
// policy does what it says where the outcome is unknown (from record_payment's
// commit to the answer's):
//
//   - verify (the spec's): the retry asks the bank (GET) first, charges
//     only when the bank never charged, and answers the bank's decision:
//     one charge, no duplicate request.
//   - retry: the retry charges again with the same step key; the bank
//     recognises the key (a duplicate row) and answers its first
//     decision: one charge.
//   - halt: every retry is answered 409 operation-requires-recovery with
//     the operation's id, and the bank hears nothing more.
//
// retry and halt are test-only variants: the child serves the generated
// operation (phasedCreatePayment) with the charge step's OnUnknown
// replaced (serviceConfig.OnUnknown), the spec having only verify.
func TestKilledServiceThenRetrySameKey(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the service and the bank as processes")
	}
	db := newPaymentsDB(t)
	bankURL := startBank(t, db)
	for i, policy := range []string{"verify", "retry", "halt"} {
		for j, point := range crashPoints {
			amount := int64(1000 + 100*i + j) // the payment's, unique: the bank's rows are counted by amount
			t.Run(policy+"/"+point.name, func(t *testing.T) {
				t.Parallel()
				killThenRetry(t, db, bankURL, policy, point, amount)
			})
		}
	}
}

// killThenRetry is one case of TestKilledServiceThenRetrySameKey.
func killThenRetry(t *testing.T, db *paymentsDB, bankURL, policy string, point crashPoint, amount int64) {
	front, frontURL := newBankFront(t, bankURL)
	variant := policy
	if policy == "verify" {
		variant = "" // the spec's
	}
	key := fmt.Sprintf("pay-%s-%s", policy, point.name)
	killed := startService(t, serviceConfig{Database: db.url, BankURL: frontURL, Name: "killed", OnUnknown: variant})
	first := make(chan error, 1)
	go func() {
		_, err := killed.pay(t.Context(), key, amount, stopAt(point.name))
		first <- err
	}()
	if r := killed.waitSaid(t, 1); r[0] != "reached "+point.name+" "+key {
		t.Fatalf("the process stopped at %q, want %s %s", r[0], point.name, key)
	}
	killed.kill()
	if err := <-first; err == nil {
		t.Fatal("the killed process answered")
	}
	if n := db.count(t, `SELECT count(*) FROM idempotency.idempotency_record WHERE idempotency_key = $1`, key); n != b2i(point.claimed) {
		t.Fatalf("%d records of the key after the kill, want %d", n, b2i(point.claimed))
	}
	db.endLeases(t, key)

	fresh := startService(t, serviceConfig{Database: db.url, BankURL: frontURL, Name: "fresh", OnUnknown: variant})
	var answers []answer
	for range 3 {
		a, err := fresh.pay(t.Context(), key, amount, nil)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, a)
	}
	for i, a := range answers[1:] {
		if a.Status != answers[0].Status || a.Body != answers[0].Body {
			t.Errorf("retry %d answered %d %s; the first retry %d %s", i+2, a.Status, a.Body, answers[0].Status, answers[0].Body)
		}
		if !a.Replayed && a.Status != http.StatusConflict {
			t.Errorf("retry %d was not a replay", i+2)
		}
	}
	unknown := point.claimed && !point.stored
	halted := policy == "halt" && unknown
	if halted {
		wantRequiresRecovery(t, db, key, answers[0])
	} else {
		wantDecided(t, db, key, amount, answers[0])
	}
	if point.stored && !answers[0].Replayed {
		t.Errorf("the first retry after the answer was stored was not a replay")
	}

	wantActed, wantDuplicates := 1, 0
	if halted && !point.charged {
		wantActed = 0
	}
	if policy == "retry" && unknown && point.charged {
		wantDuplicates = 1
	}
	if acted, dups := db.bankCharges(t, amount); acted != wantActed || dups != wantDuplicates {
		t.Errorf("the bank acted on %d charges and saw %d duplicates, want %d and %d", acted, dups, wantActed, wantDuplicates)
	}
	if n := db.count(t, `SELECT count(*) FROM payments WHERE amount = $1`, amount); n != 1 {
		t.Errorf("%d payments recorded, want 1", n)
	}
	var asked []string
	for _, r := range front.requests("fresh", "") {
		asked = append(asked, r.Method)
	}
	if want := freshBankRequests(policy, point); !slices.Equal(asked, want) {
		t.Errorf("the fresh process asked the bank %v, want %v", asked, want)
	}
}

// freshBankRequests is what the fresh process asks the bank for the
// retries after a kill at point under policy.
func freshBankRequests(policy string, point crashPoint) []string {
	switch {
	case !point.claimed:
		return []string{http.MethodPost} // nothing was left: a new run
	case point.stored:
		return nil // a replay
	case policy == "halt":
		return nil
	case policy == "retry":
		return []string{http.MethodPost}
	case point.charged:
		return []string{http.MethodGet} // verify found the charge
	}
	return []string{http.MethodGet, http.MethodPost} // verify: never charged, so charge
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
