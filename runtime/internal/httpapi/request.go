package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

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
// savepoint; tx.Commit and tx.Rollback fail with core.ErrTxOwnedByExecutor.
// Returning an error rolls back everything and frees the key.
type BusinessFunc func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request) (*Response, error)
