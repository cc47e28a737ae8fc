package idem_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
)

// A claim on a connection that has not prepared its statements yet (new)
// waits for an ACCESS EXCLUSIVE lock on the record table (DDL, VACUUM
// FULL) no longer than the wait-timeout, and so does the next one on that
// same connection, after a claim the server ended, also on a connection
// that had prepared them (warm): each request gets the wait-timeout's 409
// before the backstop, with no backend left waiting. Before, pgx prepared
// the claim's statements in a round trip of their own before the bounded
// pipeline, the first time a connection sent them and again after a
// pipeline of them failed (pgx then drops them; the opening pipeline's
// were prepared by name, but outside any bound), and that preparation
// waited for the lock under the session's lock_timeout (none) until the
// request's context ended at the backstop. Under the simple protocol
// nothing is prepared.
func TestClaimPreparationIsBoundedAgainstATableLock(t *testing.T) {
	for _, p := range []idem.Protocol{idem.ProtocolAdvisory, idem.ProtocolClaimFirst} {
		t.Run(p.String(), func(t *testing.T) {
			locktest.ConnCases(t, func(t *testing.T, tc locktest.ConnCase) {
				d := newDB(t)
				c := orderContract()
				c.WaitTimeout = 150 * time.Millisecond
				const app = "claim-prepare-under-lock"
				pool := locktest.OneConnPoolIn(t, d.connString, app, tc.Mode)
				// Opened before the warm-up, whose acquire the wait-timeout
				// bounds too: a dial under load may not fit in it.
				locktest.BackendPID(t, pool)
				h := newHandler(t, pool, c, idem.Config{Protocol: p}, createOrder)
				if r := post(h, "tenant-a", "warm-1", benchBody); r.Status != http.StatusCreated {
					t.Fatalf("warm-up: status %d %s", r.Status, r.Body)
				}
				pid := tc.Backend(t, pool)
				lockTable(t, d, "idempotency_record")
				for _, key := range []string{"locked-1", "locked-2"} {
					r := postWithin(h, backstop, "tenant-a", key, benchBody)
					if n := locktest.LockWaiters(t, d.pool, app); n != 0 {
						t.Errorf("%s: %d of the runtime's backends still wait on a lock after it answered", key, n)
					}
					if r.Status != http.StatusConflict || problemType(t, r) != idem.ProblemInProgress {
						t.Errorf("%s: status %d body %s, want the wait-timeout's 409", key, r.Status, r.Body)
					}
				}
				if got := locktest.BackendPID(t, pool); got != pid {
					t.Errorf("backend %d after the requests, %d before: they did not all run on one connection", got, pid)
				}
			})
		})
	}
}
