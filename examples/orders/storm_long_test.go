//go:build long

package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

// The storms of the long tests: orders sent as concurrent copies of each
// key, every copy retried with its key until it gets a 201, while
// something happens to the example or to its database (pgbouncer_long_test.go
// kills the example, failover_long_test.go its database's primary); then
// the checks that every key has one order, that every copy of a key was
// answered the same, and that every effect was acted on once.

// buildExample builds the example's binary into a temporary directory.
func buildExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "orders")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// keyAnswer is what one copy of a key was finally answered, and what it
// took.
type keyAnswer struct {
	key, id string
	// body is the final 201's body, replayed whether it carried
	// Idempotent-Replayed.
	body     string
	replayed bool
	err      error
	tally
}

// tally counts the requests of one or more copies and what they met
// before their 201.
type tally struct {
	requests int
	// cut counts requests without an answer (the connection cut off by a
	// kill, or the client's time-out); timeouts counts the time-outs among
	// them.
	cut, timeouts int
	// busy counts 409 in-progress answers, unavailable 503s, errors500 500s.
	busy, unavailable, errors500 int
	// unknown counts the copies that met an unknown outcome (a request
	// without an answer, a 500 or a 503) before their 201; of those,
	// replays counts the ones whose 201 was a replay (the order had
	// committed, in one of the copy's attempts or in another copy's), ran
	// the ones whose 201 ran the order.
	unknown, replays, ran int
}

// add adds the counts of b to t.
func (t *tally) add(b tally) {
	t.requests += b.requests
	t.cut += b.cut
	t.timeouts += b.timeouts
	t.busy += b.busy
	t.unavailable += b.unavailable
	t.errors500 += b.errors500
	t.unknown += b.unknown
	t.replays += b.replays
	t.ran += b.ran
}

// String sums the tally up for a test log.
func (t tally) String() string {
	return fmt.Sprintf("%d requests: %d without an answer (%d client time-outs), %d × 500, %d × 503, %d × 409 in progress; "+
		"%d copies met an unknown outcome, each resolved by retrying its key: %d answered by a replay (the order had committed, in this copy's attempt or another's), %d by running the order",
		t.requests, t.cut, t.timeouts, t.errors500, t.unavailable, t.busy, t.unknown, t.replays, t.ran)
}

// sendCopies sends each of keys orders as copies concurrent requests,
// released together, 8 keys at a time, each copy retrying until it is
// answered 201 (see sendUntilAnswered). The keys are prefix-n. It sends
// one keyAnswer per copy.
func sendCopies(addr, prefix string, keys, copies int, answers chan<- keyAnswer) {
	client := newStormClient()
	defer client.CloseIdleConnections()
	slots := make(chan struct{}, 8)
	done := make(chan struct{}, keys*copies)
	for n := range keys {
		slots <- struct{}{}
		start := make(chan struct{})
		finished := make(chan struct{}, copies)
		for range copies {
			go func() {
				<-start
				answers <- sendUntilAnswered(client, addr, prefix+"-"+strconv.Itoa(n), orderJSON(20000+n, "SKU-2", "1"))
				finished <- struct{}{}
				done <- struct{}{}
			}()
		}
		close(start)
		go func() {
			for range copies {
				<-finished
			}
			<-slots
		}()
	}
	for range keys * copies {
		<-done
	}
}

// copyDeadline bounds how long one copy retries before the test gives up
// on it.
const copyDeadline = 2 * time.Minute

// sendUntilAnswered sends one copy of order body under key until it is
// answered 201: a request without an answer, a 500, a 503 and a 409 in
// progress are counted and retried with the same key.
func sendUntilAnswered(client *http.Client, addr, key, body string) keyAnswer {
	a := keyAnswer{key: key}
	deadline := time.Now().Add(copyDeadline)
	unknown := false
	for time.Now().Before(deadline) {
		a.requests++
		ans, err := sendOrder(client, addr, key, body)
		switch {
		case err != nil:
			a.cut++
			if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
				a.timeouts++
			}
			unknown = true
		case ans.status == http.StatusCreated:
			a.id, a.body, a.replayed = ans.id, ans.body, ans.replayed
			if unknown {
				a.unknown++
				if ans.replayed {
					a.replays++
				} else {
					a.ran++
				}
			}
			return a
		case ans.status == http.StatusConflict && ans.problem == idem.ProblemInProgress:
			a.busy++
		case ans.status == http.StatusServiceUnavailable:
			a.unavailable++
			unknown = true
		case ans.status == http.StatusInternalServerError:
			a.errors500++
			unknown = true
		default:
			a.err = fmt.Errorf("answered %d %s", ans.status, ans.problem)
			return a
		}
		time.Sleep(10 * time.Millisecond) // back-off between retries, as a client would; not an ordering
	}
	a.err = fmt.Errorf("no 201 within %v (%d attempts)", copyDeadline, a.requests)
	return a
}

// newStormClient is an HTTP client for the storm: short timeouts so that a
// request to a killed process fails fast and is retried.
func newStormClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
}

// collectAnswers reads the copies' answers until answers is closed,
// calling progress (when not nil) with the number read so far, and returns
// the order each key was answered and the sum of the tallies. It fails the
// test for a copy that got no 201, and for a key whose copies were
// answered different orders or different bodies.
func collectAnswers(t *testing.T, answers <-chan keyAnswer, progress func(n int)) (map[string]string, tally) {
	t.Helper()
	var sum tally
	byKey, bodies := map[string]string{}, map[string]string{}
	n := 0
	for a := range answers {
		n++
		if progress != nil {
			progress(n)
		}
		sum.add(a.tally)
		if a.err != nil {
			t.Errorf("key %s: %v", a.key, a.err)
			continue
		}
		if prev, ok := byKey[a.key]; ok && prev != a.id {
			t.Errorf("key %s answered orders %s and %s", a.key, prev, a.id)
		} else if prev, ok := bodies[a.key]; ok && prev != a.body {
			t.Errorf("key %s answered two bodies:\n%s\n%s", a.key, prev, a.body)
		}
		byKey[a.key], bodies[a.key] = a.id, a.body
	}
	return byKey, sum
}

// checkOncePerKey checks through pool that the orders table holds one
// order per key of byKey (keys in all), the one the key was answered, and,
// once the worker is idle, that every effect of every order was acted on
// once.
func checkOncePerKey(t *testing.T, pool *pgxpool.Pool, byKey map[string]string, keys int) {
	t.Helper()
	ids := make([]string, 0, len(byKey))
	for _, id := range byKey {
		ids = append(ids, id)
	}
	var orders, answered int
	if err := pool.QueryRow(t.Context(), "SELECT count(*), count(*) FILTER (WHERE id::text = ANY($1)) FROM orders", ids).Scan(&orders, &answered); err != nil {
		t.Fatal(err)
	}
	if orders != keys || answered != keys || len(byKey) != keys {
		t.Errorf("%d orders, %d of them answered, for %d answered keys; want %d of each", orders, answered, len(byKey), keys)
	}
	waitIdle(t, pool, keys*len(orderEffects))
	calls := providerCalls(t, pool)
	for key, id := range byKey {
		for _, effect := range orderEffects {
			acted := 0
			for _, c := range calls[orderEffect{id, effect}] {
				if !c.duplicate {
					acted++
				}
			}
			if acted != 1 {
				t.Errorf("%s (order %s), %s: acted on %d times, want once", key, id, effect, acted)
			}
		}
	}
}
