//go:build long

package idembroker_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/runtime/idem"
	jsadapter "github.com/idemgen/idemgen/runtime/idembroker/jetstream"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// The kill run's size: every killEvery-th message's first commit is
// followed by a SIGKILL of its consumer process before the ack, so
// killMessages/killEvery kills in all, with killProcesses consumers at a
// time.
const (
	killMessages  = 2000
	killEvery     = 10
	killProcesses = 3
	killLine      = "idembroker-kill:"
)

// Consumer processes on JetStream are killed (SIGKILL) between the commit
// of a message and its ack, 200 times over 2,000 messages: each message's
// changes and effect are committed once, every message is processed, and
// the consumer holds nothing unacknowledged.
func TestJetStreamConsumerKilledBetweenCommitAndAck(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	h := newJetStreamHarness(t).(*jetStreamHarness)
	conn := pgtest.ConnString(t)
	pool, err := pgxpool.New(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := idem.Migrate(ctx, pool, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE applied (seq bigserial PRIMARY KEY, message_id text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for i := range killMessages {
		msg := nats.NewMsg(jsSubject)
		msg.Header.Set(jsadapter.MsgIDHeader, killID(i))
		msg.Data = []byte(fmt.Sprintf(`{"n":%d}`, i))
		if _, err := h.js.PublishMsg(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}

	type event struct {
		proc *exec.Cmd
		kind string // "committed" (the process waits for its kill) or "acked"
		id   string
	}
	events := make(chan event)
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledConsumerProcess$")
		cmd.Env = append(os.Environ(), "IDEMBROKER_KILL_CHILD=1", "IDEMBROKER_KILL_DB="+conn,
			"IDEMBROKER_KILL_NATS="+h.srv.ClientURL())
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) != 3 || f[0] != killLine {
					t.Log(sc.Text()) // the consumer process's own output
					continue
				}
				{
					select {
					case events <- event{cmd, f[1], f[2]}:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
		return cmd
	}
	running := map[*exec.Cmd]bool{}
	for range killProcesses {
		running[start()] = true
	}
	acked, kills := map[string]bool{}, 0
	for len(acked) < killMessages {
		var ev event
		select {
		case ev = <-events:
		case <-ctx.Done():
			t.Fatalf("after %d kills, %d of %d messages acknowledged: %v", kills, len(acked), killMessages, ctx.Err())
		}
		switch {
		case ev.kind == "acked":
			acked[ev.id] = true
		case ev.kind == "committed" && running[ev.proc]:
			if err := ev.proc.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = ev.proc.Wait() // killed
			delete(running, ev.proc)
			kills++
			running[start()] = true
		}
	}
	for cmd := range running {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		for {
			select {
			case <-events:
			case <-ctx.Done():
				return
			}
		}
	}()
	for cmd := range running {
		if err := cmd.Wait(); err != nil {
			t.Errorf("a consumer process stopped with %v", err)
		}
	}

	if kills != killMessages/killEvery {
		t.Errorf("%d kills, want %d", kills, killMessages/killEvery)
	}
	count := func(sql string) int {
		var n int
		if err := pool.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n, d := count(`SELECT count(*) FROM applied`), count(`SELECT count(DISTINCT message_id) FROM applied`); n != killMessages || d != killMessages {
		t.Errorf("%d changes committed for %d messages, want %d for %d", n, d, killMessages, killMessages)
	}
	if n := count(`SELECT count(*) FROM idempotency_outbox WHERE effect = 'notify'`); n != killMessages {
		t.Errorf("%d effects enqueued, want %d", n, killMessages)
	}
	if n := count(`SELECT count(*) FROM idempotency_inbox WHERE state = 'processed'`); n != killMessages {
		t.Errorf("%d messages processed in the inbox, want %d", n, killMessages)
	}
	if n := h.Unacked(t); n != 0 {
		t.Errorf("the consumer holds %d messages unacknowledged, want 0", n)
	}
	t.Logf("%d messages, %d consumer processes killed between commit and ack", killMessages, kills)
}

// killID is the id of the kill run's i-th message.
func killID(i int) string { return fmt.Sprintf("k-%04d", i) }

// TestKilledConsumerProcess is the consumer process of the kill run, run
// by it (it skips otherwise): it consumes until SIGTERM and, after the
// first commit of every killEvery-th message, says so and waits for its
// SIGKILL instead of acknowledging.
func TestKilledConsumerProcess(t *testing.T) {
	if os.Getenv("IDEMBROKER_KILL_CHILD") == "" {
		t.Skip("the consumer process of TestJetStreamConsumerKilledBetweenCommitAndAck")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv("IDEMBROKER_KILL_DB"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	consumer, err := idem.NewConsumer(exec, idem.ConsumerConfig{Name: "kill", MaxAttempts: 5, Retention: time.Hour,
		Handler: func(ctx context.Context, tx pgx.Tx, d *idem.Delivery) error {
			if _, err := tx.Exec(ctx, `INSERT INTO applied (message_id) VALUES ($1)`, d.Message.ID); err != nil {
				return err
			}
			_, err := d.Enqueue(ctx, tx, "notify", "retry", d.Message.Body)
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(os.Getenv("IDEMBROKER_KILL_NATS"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(ctx, jsStream, jsDurable)
	if err != nil {
		t.Fatal(err)
	}
	if err := jsadapter.Run(ctx, jsadapter.Config{Consumer: cons, Deliverer: killDeliverer{consumer}, RetryDelay: retryDelay}); err != nil {
		t.Fatal(err)
	}
}

// killDeliverer is the kill run's consumer, which stops dead after the
// first commit of every killEvery-th message.
type killDeliverer struct{ *idem.Consumer }

func (d killDeliverer) Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
	res, err := d.Consumer.Deliver(ctx, m)
	var n int
	if _, serr := fmt.Sscanf(m.ID, "k-%d", &n); serr == nil && err == nil && res.Outcome == idem.MessageProcessed && n%killEvery == 0 {
		fmt.Println(killLine, "committed", m.ID)
		select {} // the SIGKILL comes before the ack
	}
	if err == nil && res.Outcome.Ack() {
		fmt.Println(killLine, "acked", m.ID)
	}
	return res, err
}
