package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// syncBuffer is a log destination the executor may write from any
// goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// An operation that enqueued no effect, refused with a stored 409 by a
// real executor, is found by ops list --key in both forms a client sends
// a key, and shown by ops show; the key hash ops prints for it is the
// key_hash the executor logged for it, with the service's secret.
func TestOpsFindsAStoredFailureByItsKeyWithTheLoggedHash(t *testing.T) {
	pool := opsDB(t)
	logs := &syncBuffer{}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: "support", KeyHashSecret: []byte(opsSecret),
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	h, err := idemimpl.NewHandler(exec, idemimpl.Contract{Operation: "createOrder", Method: http.MethodPost, Route: "/orders"},
		func(*http.Request) (string, error) { return "acme", nil },
		func(context.Context, pgx.Tx, *idemimpl.Operation, *idemimpl.Request) (*idemimpl.Response, error) {
			return &idemimpl.Response{Status: http.StatusConflict, Header: http.Header{"Content-Type": {"application/json"}},
				Body: []byte(`{"error":"out of stock"}`)}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	// The client writes its key as the IETF draft does: a Structured Field string.
	res := idemtest.Serve(h, idemtest.NewRequest(http.MethodPost, "/orders", `"refused-1"`, []byte(`{"sku":"tea"}`)))
	if res.Status != http.StatusConflict {
		t.Fatalf("the service answered %d %s, want the business's 409", res.Status, res.Body)
	}

	var logged struct {
		Msg         string `json:"msg"`
		KeyHash     string `json:"key_hash"`
		OperationID string `json:"operation_id"`
	}
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() && logged.KeyHash == "" {
		if err := json.Unmarshal(sc.Bytes(), &logged); err != nil {
			t.Fatal(err)
		}
	}
	if logged.Msg != "idempotent operation" || len(logged.KeyHash) != 16 || logged.OperationID == "" {
		t.Fatalf("the executor's log has no key_hash and operation_id: %+v in\n%s", logged, logs)
	}

	for _, key := range []string{"refused-1", `"refused-1"`} {
		code, out, errOut := ops("list", "--schema", "support", "--key", key, "--format", "json")
		var list jsonList
		if code != exitOK || json.Unmarshal([]byte(out), &list) != nil {
			t.Fatalf("ops list --key %s: exit %d, %s%s", key, code, out, errOut)
		}
		if len(list.Operations) != 1 || len(list.Effects) != 0 {
			t.Fatalf("ops list --key %s: %s; want the one operation, without effects", key, out)
		}
		op := list.Operations[0]
		if op.OperationID != logged.OperationID || op.KeyHash != logged.KeyHash || op.State != "failed" || op.Status != 409 {
			t.Errorf("ops list --key %s shows %+v; want operation %s, key_hash %s (as logged), failed, 409",
				key, op, logged.OperationID, logged.KeyHash)
		}
		code, out, errOut = ops("list", "--schema", "support", "--key", key)
		if code != exitOK || !strings.Contains(out, logged.OperationID) || !strings.Contains(out, logged.KeyHash) {
			t.Errorf("ops list --key %s (table): exit %d, %s%s", key, code, out, errOut)
		}
	}

	code, out, errOut := ops("show", "--schema", "support", logged.OperationID)
	if code != exitOK {
		t.Fatalf("ops show: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"operation  " + logged.OperationID, "key hash   " + logged.KeyHash, "state      failed",
		"status     409", "effects    none"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("ops show lacks %q:\n%s", want, out)
		}
	}
}
