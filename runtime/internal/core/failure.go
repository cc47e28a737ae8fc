package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// ErrorClass says where a failed operation's error came from, for metrics
// and alerts: one of the closed set below, "" for an operation that did
// not fail. runtime/idem re-exports the set and docs/problems.md lists it.
type ErrorClass string

// The error classes.
const (
	ClassBusiness   ErrorClass = "business"   // the business function returned an error that is not a refusal
	ClassDatabase   ErrorClass = "database"   // PostgreSQL failed the statement
	ClassConnection ErrorClass = "connection" // the connection to PostgreSQL could not be opened or broke (a restart, a failover): 503, retry
	ClassTransient  ErrorClass = "transient"  // a deadlock or serialization failure (40P01, 40001), or a lease taken over: 503, retry
	ClassSaturated  ErrorClass = "saturated"  // no pool connection within the acquire timeout: 503, retry
	ClassTimeout    ErrorClass = "timeout"    // the request's context deadline passed: 503, retry
	ClassCanceled   ErrorClass = "canceled"   // the request's context was canceled: the client went away
	ClassPanic      ErrorClass = "panic"      // the business function (or a step of the executor) panicked
	ClassInternal   ErrorClass = "internal"   // anything else: a bug in the runtime or the generated code
)

// ErrUnavailable is wrapped by the errors a retry can overcome (HTTP: 503
// with Retry-After, problem temporarily-unavailable): the pool had no
// connection within the acquire timeout, the business transaction lost a
// deadlock or a serialization conflict, or the attempt's lease was taken
// over (ErrFenced); nothing of the attempt's step was stored. Or the
// connection to the database could not be opened or broke (then
// ErrConnectionLost is wrapped too): lost at COMMIT, the step may have
// committed, and a retry with the same key is answered from its record.
var ErrUnavailable = errors.New("idem: temporarily unavailable")

// ErrConnectionLost is wrapped, with ErrUnavailable, by the error of an
// attempt whose connection to the database could not be opened or broke.
var ErrConnectionLost = errors.New("idem: the connection to the database was lost")

// errSaturated is the cause of an ErrUnavailable from pool acquisition.
var errSaturated = errors.New("no pool connection within the acquire timeout")

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
	case isPg && isTransientCode(pgErr.Code), errors.Is(err, ErrFenced), errors.Is(err, ErrUnavailable):
		return ClassTransient
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	case connectionLost(err):
		return ClassConnection
	case isPg, pgconn.Timeout(err):
		return ClassDatabase
	case errors.As(err, &be):
		return ClassBusiness
	}
	return ClassInternal
}

// isTransientCode reports a deadlock (40P01) or a serialization failure
// (40001): the transaction lost a race and a retry can succeed.
func isTransientCode(code string) bool { return code == "40P01" || code == "40001" }

// connectionLost reports whether err says that the connection to
// PostgreSQL could not be opened or broke, whoever returned it (the
// business method too): a connect error, an error pgconn says happened
// before anything was sent, the server's own word (SQLSTATE class 08, or
// 57P01-57P03: terminated, crashed, starting up or shutting down), or the
// socket's end (an unexpected EOF, a reset or broken pipe, a closed
// connection).
func connectionLost(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}

// unavailable wraps a transient failure and a lost connection in
// ErrUnavailable (the latter with ErrConnectionLost), leaving any other
// error as it is.
func unavailable(err error) error {
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	switch classify(err) {
	case ClassTransient, ClassSaturated:
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	case ClassConnection:
		return fmt.Errorf("%w: %w: %w", ErrUnavailable, ErrConnectionLost, err)
	}
	return err
}

// logFailure logs a failed attempt once, with the whole error chain: at
// Error, or at Warn for what the client can simply retry (ErrUnavailable,
// a deadline that passed) and for a client that went away.
func (e *Executor) logFailure(ctx context.Context, at *attempt, class ErrorClass, err error) {
	level := slog.LevelError
	switch class {
	case ClassTransient, ClassSaturated, ClassConnection, ClassTimeout, ClassCanceled:
		level = slog.LevelWarn
	}
	e.log.LogAttrs(ctx, level, "idempotent operation failed",
		slog.String("operation", at.Policy.Operation), slog.String("operation_id", at.op.ID),
		slog.String("key_hash", e.keyHash(at.Scope, at.Key)), slog.String("class", string(class)),
		slog.String("error", err.Error()))
}

func (e *Executor) keyHash(scope, key string) string {
	if key == "" {
		return ""
	}
	return idemkey.Hash(e.keySecret, scope, key)
}

// LogFailure logs an adapter's failure to answer an attempt the executor h
// holds decided (a stored outcome it cannot read back, say), once, at
// Error, as the executor logs its own failures: keys as keyed hashes.
func LogFailure(ctx context.Context, h Holder, a Attempt, operationID string, err error) {
	Of(h).logFailure(ctx, &attempt{Attempt: a, op: &Operation{ID: operationID}}, ClassInternal, err)
}
