package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// ErrorClass says where a failed operation's error came from, for metrics
// and alerts: one of the closed set below, "" for an operation that did
// not fail. runtime/idem re-exports the set and docs/problems.md lists it.
type ErrorClass string

// The error classes.
const (
	ClassBusiness  ErrorClass = "business"  // the business function returned an error that is not a refusal
	ClassDatabase  ErrorClass = "database"  // PostgreSQL or the connection to it failed
	ClassTransient ErrorClass = "transient" // a deadlock or serialization failure (40P01, 40001): 503, retry
	ClassSaturated ErrorClass = "saturated" // no pool connection within the acquire timeout: 503, retry
	ClassTimeout   ErrorClass = "timeout"   // the request's context deadline passed
	ClassCanceled  ErrorClass = "canceled"  // the request's context was canceled: the client went away
	ClassPanic     ErrorClass = "panic"     // the business function (or a step of the executor) panicked
	ClassInternal  ErrorClass = "internal"  // anything else: a bug in the runtime or the generated code
)

// ErrUnavailable is wrapped by the errors answered 503 with Retry-After
// (problem temporarily-unavailable): the pool had no connection within the
// acquire timeout, or the business transaction lost a deadlock or a
// serialization conflict. Nothing was stored and the key is free.
var ErrUnavailable = errors.New("idem: temporarily unavailable")

// errSaturated is the cause of an ErrUnavailable from pool acquisition.
var errSaturated = errors.New("no pool connection within the acquire timeout")

// businessError marks an error returned by a business function.
type businessError struct{ err error }

func (b *businessError) Error() string { return b.err.Error() }
func (b *businessError) Unwrap() error { return b.err }

// classify returns the class of a failed operation's error.
func classify(err error) ErrorClass {
	var pgErr *pgconn.PgError
	isPg := errors.As(err, &pgErr)
	var be *businessError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errSaturated):
		return ClassSaturated
	case isPg && isTransientCode(pgErr.Code):
		return ClassTransient
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	case isPg, isConnError(err):
		return ClassDatabase
	case errors.As(err, &be):
		return ClassBusiness
	}
	return ClassInternal
}

// isTransientCode reports a deadlock (40P01) or a serialization failure
// (40001): the transaction lost a race and a retry can succeed.
func isTransientCode(code string) bool { return code == "40P01" || code == "40001" }

func isConnError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}

// unavailable wraps a transient failure in ErrUnavailable, leaving any
// other error as it is.
func unavailable(err error) error {
	if c := classify(err); c == ClassTransient || c == ClassSaturated {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// logFailure logs a failed operation once: at Error with the whole error
// chain, or at Warn for what the client can simply retry (503) and for a
// client that went away.
func (e *Executor) logFailure(ctx context.Context, c *Contract, call Call, opID string, class ErrorClass, err error) {
	level := slog.LevelError
	switch class {
	case ClassTransient, ClassSaturated, ClassCanceled:
		level = slog.LevelWarn
	}
	e.log.LogAttrs(ctx, level, "idempotent operation failed",
		slog.String("operation", c.Operation), slog.String("operation_id", opID),
		slog.String("key_hash", e.keyHash(call.Scope, call.Key)), slog.String("class", string(class)),
		slog.String("error", err.Error()))
}

// KeyHash is how a key appears in logs (idemkey.Hash).
func KeyHash(secret []byte, scope, key string) string { return idemkey.Hash(secret, scope, key) }

func (e *Executor) keyHash(scope, key string) string {
	if key == "" {
		return ""
	}
	return KeyHash(e.keySecret, scope, key)
}
