package idem_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// logCapture is a slog.Handler that keeps every record at Info and above.
type logCapture struct {
	mu      sync.Mutex
	records []slog.Record
}

func (*logCapture) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }
func (c *logCapture) WithAttrs([]slog.Attr) slog.Handler         { return c }
func (c *logCapture) WithGroup(string) slog.Handler              { return c }

func (c *logCapture) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, r.Clone())
	return nil
}

// at returns the records of level, each as its message and attributes.
func (c *logCapture) at(level slog.Level) []map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]string
	for _, r := range c.records {
		if r.Level != level {
			continue
		}
		m := map[string]string{"msg": r.Message}
		r.Attrs(func(a slog.Attr) bool {
			m[a.Key] = a.Value.String()
			return true
		})
		out = append(out, m)
	}
	return out
}

// The cause of a 500 is never lost: a business function failing with a
// wrapped error gives exactly one Error record naming the operation, its
// id, the key's keyed hash and the whole chain, and the observer's
// rolled-back event carries the class; the client sees nothing of it.
func TestFailureLoggedOnceWithItsChain(t *testing.T) {
	d := newDB(t)
	logs := &logCapture{}
	rec := &recorder{}
	secret := []byte("per-deployment")
	cause := errors.New("connection reset by peer")
	h := newHandler(t, d.pool, orderContract(), idem.Config{Logger: slog.New(logs), Observer: rec, KeyHashSecret: secret},
		func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
			if _, err := createOrder(ctx, tx, op, req); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("charge card: %w", fmt.Errorf("payment provider: %w", cause))
		})
	r := post(h, "tenant-a", "fails-1", `{"customer":"c-1","amount":5}`)
	if r.Status != http.StatusInternalServerError || problemType(t, r) != idem.ProblemInternal {
		t.Fatalf("status %d body %s, want 500 internal-error", r.Status, r.Body)
	}
	if strings.Contains(string(r.Body), "payment provider") {
		t.Errorf("the 500 discloses the cause: %s", r.Body)
	}
	errs := logs.at(slog.LevelError)
	if len(errs) != 1 {
		t.Fatalf("%d Error records, want exactly 1: %v", len(errs), errs)
	}
	got := errs[0]
	t.Logf("the Error record: %v", got)
	if want := "charge card: payment provider: connection reset by peer"; !strings.Contains(got["error"], want) {
		t.Errorf("error attribute %q lacks the chain %q", got["error"], want)
	}
	if got["operation"] != "createOrder" || got["class"] != string(idem.ClassBusiness) || len(got["operation_id"]) != 36 {
		t.Errorf("record %v, want operation createOrder, class business and an operation id", got)
	}
	if want := idemkey.Hash(secret, "tenant-a", "fails-1"); got["key_hash"] != want {
		t.Errorf("key_hash %q, want %q", got["key_hash"], want)
	}
	if w := logs.at(slog.LevelWarn); len(w) != 0 {
		t.Errorf("Warn records %v, want none", w)
	}
	if events := rec.all(); len(events) != 1 || events[0].Kind != idem.EventRolledBack || events[0].Class != idem.ClassBusiness {
		t.Errorf("events %+v, want one rolled-back event of class business", events)
	}
}

// A panic in the business function is logged once at Error with its value
// and observed with class panic, then propagated.
func TestPanicLoggedOnce(t *testing.T) {
	d := newDB(t)
	logs := &logCapture{}
	rec := &recorder{}
	h := newHandler(t, d.pool, orderContract(), idem.Config{Logger: slog.New(logs), Observer: rec},
		func(context.Context, pgx.Tx, *idemimpl.Operation, *idemimpl.Request) (*idemimpl.Response, error) {
			panic("nil map in pricing")
		})
	req := newOrderRequest("tenant-a", "panics-1", `{"customer":"c-1","amount":5}`)
	if _, panicked := serveRecovering(h, req); !panicked {
		t.Fatal("the panic was not propagated")
	}
	errs := logs.at(slog.LevelError)
	if len(errs) != 1 || !strings.Contains(errs[0]["error"], "nil map in pricing") || errs[0]["class"] != "panic" {
		t.Fatalf("Error records %v, want one with the panic value and class panic", errs)
	}
	if events := rec.all(); len(events) != 1 || events[0].Class != idem.ClassPanic {
		t.Errorf("events %+v, want one of class panic", events)
	}
}

func newOrderRequest(tenant, key, body string) *http.Request {
	req := idemtest.NewRequest(http.MethodPost, "/orders", key, []byte(body))
	req.Header.Set("X-Tenant", tenant)
	return req
}
