package idem_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// Must show 6, first half: a 4xx business rejection matching
// store-failures is stored and replayed, and the business changes made
// before it are rolled back.
func TestStoredFailureReplays(t *testing.T) {
	d := newDB(t)
	var calls int
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, countCalls(&calls, createOrder))
	body := `{"customer":"c-1","amount":-5}`
	first := post(h, "tenant-a", "neg-1", body)
	if first.Status != http.StatusBadRequest {
		t.Fatalf("first: status %d body %s, want the business 400", first.Status, first.Body)
	}
	retry := post(h, "tenant-a", "neg-1", body)
	if retry.Status != http.StatusBadRequest || !bytes.Equal(retry.Body, first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: status %d replayed %q body %s, want the 400 replayed", retry.Status, retry.Header.Get("Idempotent-Replayed"), retry.Body)
	}
	if calls != 1 {
		t.Errorf("business ran %d times, want 1", calls)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 0 {
		t.Errorf("%d orders, want the rejected insert rolled back", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE state = 'failed' AND response_status = 400"); n != 1 {
		t.Errorf("%d failed records, want 1", n)
	}
}

// Must show 6, second half: a 5xx, an error, a panic, a cancelled context
// or a serialization failure frees the key; the retry executes exactly
// once and is then replayed.
func TestUnstoredFailureFreesKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(ctx context.Context, tx pgx.Tx, cancel context.CancelFunc) (*idemimpl.Response, error)
		want int // status of the failed attempt; 0 for a panic
	}{
		{"5xx response", func(context.Context, pgx.Tx, context.CancelFunc) (*idemimpl.Response, error) {
			return jsonResponse(http.StatusServiceUnavailable, map[string]string{"error": "busy"}), nil
		}, http.StatusServiceUnavailable},
		{"error", func(context.Context, pgx.Tx, context.CancelFunc) (*idemimpl.Response, error) {
			return nil, errors.New("payment provider down")
		}, http.StatusInternalServerError},
		{"no status", func(context.Context, pgx.Tx, context.CancelFunc) (*idemimpl.Response, error) {
			return &idemimpl.Response{Body: []byte("forgot the status")}, nil
		}, http.StatusInternalServerError},
		{"panic", func(context.Context, pgx.Tx, context.CancelFunc) (*idemimpl.Response, error) {
			panic("business bug")
		}, 0},
		{"context cancelled", func(ctx context.Context, tx pgx.Tx, cancel context.CancelFunc) (*idemimpl.Response, error) {
			cancel()
			_, err := tx.Exec(ctx, "SELECT 1")
			return nil, err
		}, http.StatusInternalServerError},
		{"serialization failure", func(ctx context.Context, tx pgx.Tx, _ context.CancelFunc) (*idemimpl.Response, error) {
			_, err := tx.Exec(ctx, `DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`)
			return nil, err
		}, http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDB(t)
			var calls int
			var cancel context.CancelFunc
			fn := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
				calls++
				resp, err := createOrder(ctx, tx, op, req) // the insert that must be rolled back
				if calls > 1 || err != nil {
					return resp, err
				}
				return tc.fail(ctx, tx, cancel)
			}
			h := newHandler(t, d.pool, orderContract(), idem.Config{}, fn)
			body := `{"customer":"c-1","amount":9}`

			ctx, c := context.WithCancel(context.Background())
			cancel = c
			defer cancel()
			req := idemtest.NewRequest(http.MethodPost, "/orders", "fail-1", []byte(body))
			req.Header.Set("X-Tenant", "tenant-a")
			first, panicked := serveRecovering(h, req.WithContext(ctx))
			if (tc.want == 0) != panicked {
				t.Fatalf("panicked %v, want %v", panicked, tc.want == 0)
			}
			if first.Status != tc.want {
				t.Fatalf("failed attempt: status %d body %s, want %d", first.Status, first.Body, tc.want)
			}
			if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
				t.Fatalf("%d records after the failed attempt, want the key freed", n)
			}
			retry := post(h, "tenant-a", "fail-1", body)
			if retry.Status != http.StatusCreated || retry.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("retry: status %d replayed %q body %s, want a fresh 201", retry.Status, retry.Header.Get("Idempotent-Replayed"), retry.Body)
			}
			again := post(h, "tenant-a", "fail-1", body)
			if !bytes.Equal(again.Body, retry.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("third attempt: status %d body %s, want the retry replayed", again.Status, again.Body)
			}
			if calls != 2 {
				t.Errorf("business ran %d times, want the failed attempt and one retry", calls)
			}
			if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
				t.Errorf("%d orders, want 1", n)
			}
		})
	}
}

// serveRecovering serves req and reports a panic out of the handler (which
// net/http would turn into a closed connection) instead of propagating it.
func serveRecovering(h http.Handler, req *http.Request) (resp idemtest.Response, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return idemtest.Serve(h, req), false
}
