package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// paymentsDB is a database of the test's own with the service's tables
// (idempotency tables in schema idempotency, payments) and, once the
// bank runs on it, the bank's; pool is the test's connection to it.
type paymentsDB struct {
	url  string
	pool *pgxpool.Pool
}

func newPaymentsDB(t *testing.T) *paymentsDB {
	t.Helper()
	url := pgtest.Database(t)
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := idem.Migrate(t.Context(), pool, "idempotency"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), Schema); err != nil {
		t.Fatal(err)
	}
	return &paymentsDB{url: url, pool: pool}
}

// count runs a count query.
func (db *paymentsDB) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(t.Context(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// endLeases lets the leases of the operations of keys run out now, on
// the database's clock: what waiting for them would do, without the wait.
// Its update waits for the row locks a killed process's transaction still
// held, until PostgreSQL has rolled that transaction back.
func (db *paymentsDB) endLeases(t *testing.T, keys ...string) {
	t.Helper()
	if _, err := db.pool.Exec(t.Context(), `UPDATE idempotency.idempotency_progress SET lease_until = now()
WHERE idempotency_key = ANY ($1) AND lease_until > now() AND lease_until < 'infinity'`, keys); err != nil {
		t.Fatal(err)
	}
}

// serviceProcess is a running child service process.
type serviceProcess struct {
	addr   string
	client *http.Client
	said   chan string // what it said but "listening", such as "reached <point> <idempotency key>"
	cmd    *exec.Cmd
	done   chan struct{}
}

// startService starts a child service process with cfg and waits until
// it listens. Unless killed, it is killed at the end of the test; its
// log is shown if the test failed.
func startService(t *testing.T, cfg serviceConfig) *serviceProcess {
	t.Helper()
	config, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serviceChildEnv+"="+string(config))
	logs, err := os.Create(filepath.Join(t.TempDir(), cfg.Name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close() // the child has its own descriptor
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serviceProcess{cmd: cmd, done: make(chan struct{}), said: make(chan string, 256),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	lines := bufio.NewScanner(out)
	listening := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if addr, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
				listening <- addr
			} else {
				p.said <- lines.Text()
			}
		}
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("service process %s:\n%s", cfg.Name, b)
		}
	})
	select {
	case p.addr = <-listening:
		return p
	case <-p.done:
		t.Fatalf("service process %s exited before listening", cfg.Name)
	}
	return nil
}

// kill ends the process with SIGKILL and waits until it is gone.
func (p *serviceProcess) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
	p.client.CloseIdleConnections()
}

// waitSaid waits until p has said n more lines and returns them.
func (p *serviceProcess) waitSaid(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		select {
		case r := <-p.said:
			got = append(got, r)
		case <-p.done:
			t.Fatalf("the service process exited having said %d of %d lines: %q", len(got), n, got)
		}
	}
	return got
}

// answer is what POST /payments answered.
type answer struct {
	Status   int
	Body     string
	Replayed bool
}

// pay sends POST /payments for amount with key to p, with the test's
// headers for the child (stopAt, announce, or nil).
func (p *serviceProcess) pay(ctx context.Context, key string, amount int64, test http.Header) (answer, error) {
	body := fmt.Sprintf(`{"amount":%d,"currency":"EUR","card_token":"tok_visa"}`, amount)
	// A body that cannot be rewound, so that the transport never resends
	// a request that met a killed process.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.addr+"/payments", io.MultiReader(strings.NewReader(body)))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	for name, values := range test {
		req.Header[name] = values
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{Status: resp.StatusCode, Body: string(b), Replayed: resp.Header.Get("Idempotent-Replayed") == "true"}, err
}

// stopAt asks the child to stop the request's attempt at point.
func stopAt(point string) http.Header { return http.Header{stopHeader: {point}} }

// announce asks the child to say when the request arrives.
var announce = http.Header{announceHeader: {"1"}}

// payUntilDecided sends the payment until it is answered with anything
// but 409 operation-in-progress or a 503, the answers a client retries.
func (p *serviceProcess) payUntilDecided(ctx context.Context, key string, amount int64) (answer, error) {
	for {
		a, err := p.pay(ctx, key, amount, nil)
		if err != nil || (a.Status != http.StatusServiceUnavailable && !inProgress(a)) {
			return a, err
		}
	}
}

// wantDecided fails unless a is the 201 of the payment of amount: its
// recorded id and the bank's decision for its key.
func wantDecided(t *testing.T, db *paymentsDB, key string, amount int64, a answer) {
	t.Helper()
	var id int64
	var status, decided string
	if err := db.pool.QueryRow(t.Context(), `SELECT p.id, p.status, d.status FROM payments p
JOIN bank_decisions d ON d.charge_id = p.charge_id WHERE p.amount = $1`, amount).Scan(&id, &status, &decided); err != nil {
		t.Fatalf("the payment of key %s and its bank decision: %v", key, err)
	}
	var got Payment
	if err := json.Unmarshal([]byte(a.Body), &got); a.Status != http.StatusCreated || err != nil {
		t.Fatalf("the retry answered %d %s; want 201", a.Status, a.Body)
	}
	if got.ID != id || string(got.Status) != decided || status != decided {
		t.Errorf("answered %+v; recorded payment %d %s, bank decision %s", got, id, status, decided)
	}
}

// wantRequiresRecovery fails unless a is 409 operation-requires-recovery
// naming the operation of key.
func wantRequiresRecovery(t *testing.T, db *paymentsDB, key string, a answer) {
	t.Helper()
	var opID, state string
	if err := db.pool.QueryRow(t.Context(), `SELECT operation_id::text, state FROM idempotency.idempotency_record WHERE idempotency_key = $1`,
		key).Scan(&opID, &state); err != nil {
		t.Fatal(err)
	}
	var p Problem
	if err := json.Unmarshal([]byte(a.Body), &p); a.Status != http.StatusConflict || err != nil {
		t.Fatalf("the retry answered %d %s; want 409", a.Status, a.Body)
	}
	if p.Type == nil || *p.Type != idem.ProblemRequiresRecovery || p.OperationID == nil || *p.OperationID != opID {
		t.Errorf("answered %s; want operation-requires-recovery naming operation %s", a.Body, opID)
	}
	if state != "requires_recovery" {
		t.Errorf("the record is %s, want requires_recovery", state)
	}
}

// waitFor polls cond until it holds, failing the test after two
// minutes: a condition to wait for, not a time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within two minutes", what)
		}
		<-tick.C
	}
}
