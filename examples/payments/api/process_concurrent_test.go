package api

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
)

// concurrentClients is how many clients send the same payment at once.
const concurrentClients = 32

// Must show 4. 32 clients send the same payment (one key, one body) at
// once, released together by a barrier, half of them to each of two
// service processes, under the spec's concurrency wait and under a
// test-only variant with reject (serviceConfig.Reject). The bank's front
// holds the first charge until the other requests are in: under wait,
// until both processes have said that all 32 arrived; under reject, until
// the 31 duplicates were answered 409 operation-in-progress (then they
// retry until they get the final answer). In both, the operation runs
// once: the bank receives one request, acts once, sees no duplicate, one
// payment is recorded, one client gets the answer as new and the 31
// others the same answer replayed. (Were the duplicates slower to arrive
// than the charge's 10 s timeout, the first attempt would give its held
// request up and, under verify, ask and charge again: the test then
// accepts more requests, never two at once nor two charges.)
func TestConcurrentIdenticalPaymentsRunOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the service and the bank as processes")
	}
	db := newPaymentsDB(t)
	bankURL := startBank(t, db)
	for i, mode := range []string{"wait", "reject"} {
		t.Run(mode, func(t *testing.T) {
			concurrentPayments(t, db, bankURL, mode == "reject", "concurrent-"+mode, int64(9000+i))
		})
	}
}

// concurrentPayments is one case of TestConcurrentIdenticalPaymentsRunOnce.
func concurrentPayments(t *testing.T, db *paymentsDB, bankURL string, reject bool, key string, amount int64) {
	front, frontURL := newBankFront(t, bankURL)
	held, release := front.hold(http.MethodPost, 1)
	t.Cleanup(release)
	var procs []*serviceProcess
	for _, name := range []string{"service-a", "service-b"} {
		procs = append(procs, startService(t, serviceConfig{Database: db.url, BankURL: frontURL, Name: name,
			Reject: reject, MaxConns: concurrentClients + 4}))
	}
	firsts := make([]answer, concurrentClients)
	finals := make([]answer, concurrentClients)
	answered := make(chan int, concurrentClients) // a client's index, once it has its first answer
	start, released := make(chan struct{}), make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(concurrentClients)
	for c := range concurrentClients {
		p := procs[c%len(procs)]
		done.Go(func() {
			ready.Done()
			<-start
			a, err := p.pay(t.Context(), key, amount, announce)
			if err != nil {
				t.Error(err)
			}
			firsts[c] = a
			answered <- c
			if inProgress(a) {
				<-released
				if a, err = p.payUntilDecided(t.Context(), key, amount); err != nil {
					t.Error(err)
				}
			}
			finals[c] = a
		})
	}
	ready.Wait()
	close(start)
	<-held
	if reject {
		// The first attempt is held at the bank: every other client has
		// its answer, and it must be 409 operation-in-progress.
		for range concurrentClients - 1 {
			if c := <-answered; !inProgress(firsts[c]) {
				t.Errorf("client %d, under reject while the first attempt runs, got %d %s; want 409 operation-in-progress", c, firsts[c].Status, firsts[c].Body)
			}
		}
	} else {
		for _, p := range procs {
			p.waitSaid(t, concurrentClients/len(procs)) // "arrived <key>"
		}
	}
	release()
	close(released)
	done.Wait()

	fresh, waited := 0, 0
	for c, a := range finals {
		if a.Status != finals[0].Status || a.Body != finals[0].Body {
			t.Errorf("client %d got %d %s; client 0 got %d %s", c, a.Status, a.Body, finals[0].Status, finals[0].Body)
		}
		if !a.Replayed {
			fresh++
		}
		if !inProgress(firsts[c]) && firsts[c].Replayed {
			waited++
		}
	}
	if fresh != 1 {
		t.Errorf("%d clients got the answer as new, want 1 (the others a replay)", fresh)
	}
	wantDecided(t, db, key, amount, finals[0])
	if acted, dups := db.bankCharges(t, amount); acted != 1 || dups != 0 {
		t.Errorf("the bank acted on %d charges and saw %d duplicates, want 1 and 0", acted, dups)
	}
	front.mu.Lock()
	requests, overlaps, gaveUp := len(front.log), len(front.overlaps), front.heldGaveUp
	front.mu.Unlock()
	switch {
	case overlaps != 0:
		t.Errorf("%d requests reached the bank's front while another for the key was in flight", overlaps)
	case gaveUp:
		// The duplicates took longer to arrive than the step's timeout:
		// the first attempt gave its held charge up (it never reached the
		// bank) and charged again, as verify does.
		t.Logf("the held charge was given up after the step's timeout; the bank's front received %d requests", requests)
	case requests != 1:
		t.Errorf("the bank's front received %d requests, want 1", requests)
	}
	t.Logf("%d clients had the final answer at once (a replay after waiting), %d after 409 operation-in-progress and retries",
		waited, concurrentClients-1-waited)
}

// inProgress reports whether a is 409 operation-in-progress.
func inProgress(a answer) bool {
	return a.Status == http.StatusConflict && strings.Contains(a.Body, idem.ProblemInProgress)
}
