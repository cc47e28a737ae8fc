package engine

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// Operation identifies the running operation to the business function;
// generated operation handles hold it, unexported, behind their typed
// effect enqueuers.
type Operation struct {
	ID    string // a UUID the runtime generated for this operation, for logs and support
	Name  string // the contract's operation name
	Scope string // the trusted scope the key lives in
	Key   string // the idempotency key

	id       [16]byte
	store    *pgstore.Store
	enqueued []string // the names of the effects Enqueue wrote, for EventEffectEnqueued
	clock    Clock
}

// Effect is a side effect of an operation, executed later through the
// outbox.
type Effect struct {
	// Name is the effect's name in the contract, such as confirmation_email.
	Name string
	// OnUnknown is the contract's policy when the effect's outcome is
	// unknown: retry, verify or halt.
	OnUnknown string
	// Payload is what the effect handler needs, usually JSON.
	Payload []byte
}

// Enqueue writes e to the outbox through tx, the transaction the business
// function was given, so the effect exists exactly when the operation
// commits. It returns the effect's key, stable across retries, for the
// effect handler to pass on to the provider.
func (o *Operation) Enqueue(ctx context.Context, tx pgx.Tx, e Effect) (string, error) {
	if o.store == nil {
		return "", errors.New("idem: Enqueue on an operation the executor did not start")
	}
	key, err := o.store.Enqueue(ctx, tx, pgstore.Effect{Scope: o.Scope, OperationID: o.id, Operation: o.Name, Name: e.Name,
		OnUnknown: e.OnUnknown, Payload: e.Payload, At: o.clock.Now()})
	if err == nil {
		o.enqueued = append(o.enqueued, e.Name)
	}
	return key, err
}

// Request is what the business function gets of the HTTP request: the raw
// body bytes (already read, within the size limit), the path parameters,
// the query parameters and the header.
type Request struct {
	Method     string
	Route      string
	PathParams map[string]string
	// Query holds the query parameters of the request URL.
	Query  url.Values
	Header http.Header
	Body   []byte
}

// Response is the business function's answer. A 2xx or 3xx response is
// stored with the record and committed; a status that matches the
// contract's store-failures is stored after the business changes are rolled
// back to a savepoint; any other status rolls back everything and frees the
// key, and the response is sent once, unstored.
//
// A stored response keeps its status, its body and, of Header,
// Content-Type, the headers Typed names and the contract's ReplayHeaders;
// a replay sends exactly those. The other headers are sent with the first
// answer only.
type Response struct {
	Status int
	Header http.Header
	// Typed names the headers of Header that the response type declares
	// (a generated response's typed headers, such as Location): they are
	// part of the answer, stored and replayed with it.
	Typed []string
	Body  []byte
}

// BusinessFunc runs the operation inside the executor's transaction. tx is
// the transaction that also holds the claim: everything done through it
// commits or rolls back with the stored response. tx.Begin opens a
// savepoint; tx.Commit and tx.Rollback fail with ErrTxOwnedByExecutor.
// Returning an error rolls back everything and frees the key.
type BusinessFunc func(ctx context.Context, tx pgx.Tx, op *Operation, req *Request) (*Response, error)
