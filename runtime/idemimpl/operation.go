package idemimpl

import (
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// Operation identifies the running operation to the business function:
// ID, Name, Scope and Key, and Enqueue for its effects. Generated
// operation handles copy its ID, Scope and Key and keep it unexported, so
// that effects are enqueued only through their typed enqueuers.
type Operation = core.Operation

// Effect is a side effect of an operation, written to the outbox by
// Operation.Enqueue in the operation's transaction.
type Effect = core.Effect

// Request is what the business function gets of the HTTP request: the raw
// body, the path parameters and the header.
type Request = httpapi.Request

// Response is the business function's answer, stored and replayed as the
// contract says.
type Response = httpapi.Response

// BusinessFunc runs an operation inside the executor's transaction; the
// raw-body form of Typed.Run.
type BusinessFunc = httpapi.BusinessFunc

// ErrInvalidBody is wrapped by the errors of generated decoders: the body
// answers 400 request-body-invalid. It is runtime/idem's ErrInvalidBody.
var ErrInvalidBody = httpapi.ErrInvalidBody
