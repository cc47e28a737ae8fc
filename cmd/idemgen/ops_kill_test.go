package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

// haltChildEnv makes this test binary a worker process whose provider
// blocks forever after saying "called": the child of
// TestOpsListShowsAnEffectHaltedAfterAKill. init diverts to it before the
// tests run.
const haltChildEnv = "IDEMGEN_OPS_TEST_WORKER"

func init() {
	if cs := os.Getenv(haltChildEnv); cs != "" {
		os.Exit(haltChild(cs))
	}
}

// blockingProvider says it was called, then blocks until SIGKILL.
type blockingProvider struct{}

func (blockingProvider) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	fmt.Println("called")
	select {}
}

func haltChild(cs string) int {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, cs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Schema: "support", ID: "killed",
		Providers: map[string]idem.Provider{"charge": blockingProvider{}}, Lease: time.Second, PollInterval: 10 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := w.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Must show 1, halt: a worker process killed after the provider call and
// before recording the outcome leaves a halt effect that the next worker
// moves to requires_recovery without calling again, and ops list and show
// tell support so.
func TestOpsListShowsAnEffectHaltedAfterAKill(t *testing.T) {
	pool := opsDB(t)
	const id = "44444444-4444-4444-8444-444444444444"
	if _, err := pool.Exec(t.Context(), `INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown,
    available_at, created_at, operation) VALUES ('acme', $1::uuid, 1, 'charge', $1::text || '/charge/1', 'halt', now(), now(), 'createOrder')`, id); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), haltChildEnv+"="+os.Getenv("DATABASE_URL"))
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "called\n" {
		t.Fatalf("the worker process said %q (%v), want called", line, err)
	}
	_ = child.Process.Kill()
	_ = child.Wait()

	halted := make(haltSeen, 1)
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Schema: "support", ID: "survivor",
		Providers: map[string]idem.Provider{"charge": unknownProvider{}}, Observer: halted, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	<-halted // after the killed worker's lease ran out
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	code, list, errOut := ops("list", "--schema", "support", "--state", "requires_recovery", "--operation-id", id)
	if code != exitOK || !strings.Contains(list, id+"/charge/1") || !strings.Contains(list, "requires_recovery") {
		t.Fatalf("ops list (exit %d, %s) does not show the halted effect:\n%s", code, errOut, list)
	}
	code, show, errOut := ops("show", "--schema", "support", id)
	if code != exitOK {
		t.Fatalf("ops show: exit %d: %s", code, errOut)
	}
	// The history: the killed worker's attempt lost, the survivor's halted
	// without calling.
	lines := strings.Split(show, "\n")
	for _, want := range [][]string{{"1", "killed", "lost"}, {"2", "survivor", "none", "halted", "the policy is halt"}} {
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.HasPrefix(strings.TrimSpace(l), want[0]+" ") && allIn(l, want[1:])
		}) {
			t.Errorf("ops show has no attempt line with %q:\n%s", want, show)
		}
	}
}

func allIn(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
