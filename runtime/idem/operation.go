package idem

import (
	"context"
	"net/http"

	"github.com/jackc/pgx/v5"
)

// Operation identifies the running operation to the business function.
type Operation struct {
	ID    string // a UUID the runtime generated for this operation, for logs and support
	Name  string // the contract's operation name
	Scope string // the trusted scope the key lives in
	Key   string // the idempotency key
}

// Request is what the business function gets of the HTTP request: the raw
// body bytes (already read, within the size limit), the path parameters
// and the header.
type Request struct {
	Method     string
	Route      string
	PathParams map[string]string
	Header     http.Header
	Body       []byte
}

// Response is the business function's answer. A 2xx or 3xx response is
// stored with the record and committed; a status that matches the
// contract's StoreFailures is stored after the business changes are rolled
// back to a savepoint; any other status rolls back everything and frees the
// key, and the response is sent once, unstored.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// BusinessFunc runs the operation inside the executor's transaction. tx is
// the transaction that also holds the claim: everything done through it
// commits or rolls back with the stored response. tx.Begin opens a
// savepoint; tx.Commit and tx.Rollback fail with ErrTxOwnedByExecutor.
// Returning an error rolls back everything and frees the key.
type BusinessFunc func(ctx context.Context, tx pgx.Tx, op *Operation, req *Request) (*Response, error)
