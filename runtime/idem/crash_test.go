package idem_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// The helper process of TestKilledMidTransactionLeavesNothing reads these.
const (
	helperProcessEnv = "IDEM_TEST_HELPER_CONN" // its connection string; set only in the child
	helperKeyEnv     = "IDEM_TEST_HELPER_KEY"
	midTransaction   = "mid-transaction"
)

// TestHelperProcess is the child of TestKilledMidTransactionLeavesNothing;
// TestMain diverts to helperProcess before any test runs when the child's
// environment is set, so as a test of its own it does nothing.
func TestHelperProcess(t *testing.T) {}

// helperProcess claims a key and inserts an order, tells the parent on
// stdout that it is mid-transaction, and blocks until it is killed.
func helperProcess() int {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv(helperProcessEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	block := make(chan struct{})
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Protocol: testProtocol()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	core.InstallFaults(exec, faults.Hooks{
		AfterBusiness: func(_ context.Context, operationID string) error {
			fmt.Printf("%s %s\n", midTransaction, operationID)
			<-block // until SIGKILL
			return nil
		},
	})
	h, err := idemimpl.NewHandler(exec, orderContract(), tenantScope, createOrder)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	post(h, "tenant-a", os.Getenv(helperKeyEnv), `{"customer":"c-1","amount":5}`)
	fmt.Fprintln(os.Stderr, "helper: the request finished, want it killed mid-transaction")
	return 3
}

// Must show 8: a process killed with SIGKILL in the middle of the
// transaction leaves no record, and the retry runs once.
func TestKilledMidTransactionLeavesNothing(t *testing.T) {
	d := newDB(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperProcessEnv+"="+d.connString, helperKeyEnv+"=killed-1")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("reading the child: %v (got %q)", err, line)
	}
	killedOp, ok := strings.CutPrefix(strings.TrimSpace(line), midTransaction+" ")
	if !ok {
		_ = cmd.Process.Kill()
		t.Fatalf("child said %q, want %q", line, midTransaction)
	}
	reject := orderContract()
	reject.Concurrency = idemimpl.ConcurrencyReject
	probe := newHandler(t, d.pool, reject, idem.Config{}, createOrder)
	if r := post(probe, "tenant-a", "killed-1", `{"customer":"c-1","amount":5}`); r.Status != http.StatusConflict {
		_ = cmd.Process.Kill()
		t.Fatalf("while the child holds the key: status %d body %s, want 409", r.Status, r.Body)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child exit: %v, want killed", err)
	}

	var calls int
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, countCalls(&calls, createOrder))
	r := post(h, "tenant-a", "killed-1", `{"customer":"c-1","amount":5}`)
	if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry: status %d replayed %q body %s, want a fresh 201", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body)
	}
	if calls != 1 {
		t.Errorf("retry ran the business function %d times, want 1", calls)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE operation_id = $1", killedOp); n != 0 {
		t.Errorf("%d records of the killed operation %s remain", n, killedOp)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 1 {
		t.Errorf("%d records, want the retry's only", n)
	}
}

// countCalls wraps fn to count its calls; the tests that use it call from
// one goroutine at a time.
func countCalls(n *int, fn idemimpl.BusinessFunc) idemimpl.BusinessFunc {
	return func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		*n++
		return fn(ctx, tx, op, req)
	}
}
