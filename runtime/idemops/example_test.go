package idemops_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ExampleClient_Find looks up what became of a client's attempt, as a
// status route does: by the client's scope and key, in either form the
// client sent it, never reaching another scope.
func ExampleClient_Find() {
	ctx := context.Background()
	// A service's database, where tenant-a's order under the key order-1
	// was refused with a stored 409.
	pool, done := exampleService("tenant-a", "order-1")
	defer done()

	ops, err := idemops.New(pool, idemops.Config{
		Schema:        "idempotency",
		KeyHashSecret: []byte("the service's idem.Config.KeyHashSecret"),
	})
	if err != nil {
		panic(err)
	}
	op, err := ops.Find(ctx, "tenant-a", `"order-1"`)
	if err != nil {
		panic(err)
	}
	fmt.Println(op.State, op.Response.Status, op.EffectCount, "effects, key_hash", op.KeyHash)

	_, err = ops.Find(ctx, "tenant-b", "order-1")
	fmt.Println(errors.Is(err, idemops.ErrNotFound))
	// Output:
	// failed 409 0 effects, key_hash 8758053536e7f83a
	// true
}

// ExampleClient_Retry lists the effects that wait for a person and runs
// one again, with an audit row written in the same transaction.
func ExampleClient_Retry() {
	ctx := context.Background()
	pool, done := exampleService("tenant-a", "order-1")
	defer done()
	// The order's confirmation email ran out of attempts.
	if _, err := pool.Exec(ctx, `INSERT INTO idempotency.idempotency_outbox (scope, operation_id, seq, effect, effect_key,
	    on_unknown, state, attempts, available_at, created_at, operation)
	    VALUES ('tenant-a', '5b1c7e0a-6c1d-4f4e-9a57-1e0a1a7f0001', 1, 'confirmation_email',
	            '5b1c7e0a-6c1d-4f4e-9a57-1e0a1a7f0001/confirmation_email/1', 'retry', 'dead', 10, now(), now(), 'createOrder')`); err != nil {
		panic(err)
	}

	ops, err := idemops.New(pool, idemops.Config{Schema: "idempotency"})
	if err != nil {
		panic(err)
	}
	dead, err := ops.ListEffects(ctx, idemops.EffectFilter{State: idemops.EffectDead})
	if err != nil {
		panic(err)
	}
	for _, e := range dead {
		entry, err := ops.Retry(ctx, e.Key, idemops.Action{Actor: "alice", Reason: "the mail server is back"})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s -> %s by %s\n", e.Name, entry.From, entry.To, entry.Actor)
	}
	// Output:
	// confirmation_email: dead -> pending by alice
}

// ExampleClient_ResolveOperation settles a phased payment that halted on
// the bank's lost answer with what the bank's statement shows: every later
// retry of the payment receives that answer, replayed.
func ExampleClient_ResolveOperation() {
	ctx := context.Background()
	pool, done := exampleService("tenant-a", "order-1")
	defer done()
	// The payment halted after recording itself, as the runtime leaves one.
	if _, err := pool.Exec(ctx, `INSERT INTO idempotency.idempotency_record (scope, idempotency_key, fingerprint, state,
	    operation_id, operation, created_at, completed_at, expires_at, purge_at)
	    VALUES ('tenant-a', 'pay-1', '\x00', 'requires_recovery', '5b1c7e0a-6c1d-4f4e-9a57-1e0a1a7f0002', 'createPayment',
	            now(), now(), now() + interval '1 day', now() + interval '2 days')`); err != nil {
		panic(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO idempotency.idempotency_progress (scope, idempotency_key, operation, operation_id,
	    fencing_token, lease_until, checkpoint, updated_at)
	    VALUES ('tenant-a', 'pay-1', 'createPayment', '5b1c7e0a-6c1d-4f4e-9a57-1e0a1a7f0002', 1, 'infinity', 'record_payment', now())`); err != nil {
		panic(err)
	}

	ops, err := idemops.New(pool, idemops.Config{Schema: "idempotency"})
	if err != nil {
		panic(err)
	}
	halted, err := ops.ListOperations(ctx, idemops.OperationFilter{State: idemops.OperationRequiresRecovery})
	if err != nil {
		panic(err)
	}
	for _, op := range halted {
		fmt.Println(op.Name, "halted after", op.Progress.RecoveryPoint)
		entry, err := ops.ResolveOperation(ctx, op.ID, idemops.Resolution{To: idemops.OperationCompleted,
			Answer: idemops.Answer{Status: http.StatusCreated, ContentType: "application/json", Body: []byte(`{"status":"approved"}`)}},
			idemops.Action{Actor: "alice", Reason: "the bank's statement shows the charge approved"})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s -> %s by %s\n", entry.From, entry.To, entry.Actor)
	}
	op, err := ops.Find(ctx, "tenant-a", "pay-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(op.Response.Status, op.Response.Header.Get("Content-Type"), string(op.Response.Body))
	// Output:
	// createPayment halted after record_payment
	// requires_recovery -> completed by alice
	// 201 application/json {"status":"approved"}
}

// exampleService runs a service on a fresh database, with its tables in
// schema idempotency, and answers one request for scope under key with a
// stored 409; it returns the pool and the function that drops it all.
func exampleService(scope, key string) (*pgxpool.Pool, func()) {
	ctx := context.Background()
	connString, drop := pgtest.ExampleDatabase()
	pool, err := pgxpool.New(ctx, connString)
	if err != nil {
		panic(err)
	}
	done := func() { pool.Close(); drop() }
	if err := idem.Migrate(ctx, pool, "idempotency"); err != nil {
		panic(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: "idempotency", KeyHashSecret: []byte("the service's idem.Config.KeyHashSecret")})
	if err != nil {
		panic(err)
	}
	h, err := idemimpl.NewHandler(exec, idemimpl.Contract{Operation: "createOrder", Method: http.MethodPost, Route: "/orders"},
		func(*http.Request) (string, error) { return scope, nil }, refuse)
	if err != nil {
		panic(err)
	}
	if res := idemtest.Serve(h, idemtest.NewRequest(http.MethodPost, "/orders", key, []byte(`{"sku":"tea"}`))); res.Status != http.StatusConflict {
		panic(fmt.Sprintf("the service answered %d", res.Status))
	}
	return pool, done
}

// refuse is a business method that refuses every order: out of stock.
func refuse(context.Context, pgx.Tx, *idemimpl.Operation, *idemimpl.Request) (*idemimpl.Response, error) {
	return &idemimpl.Response{Status: http.StatusConflict, Header: http.Header{"Content-Type": {"application/json"}},
		Body: []byte(`{"error":"out of stock"}`)}, nil
}
