package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/schema"
)

// Config configures an Executor. runtime/idem builds it from the
// service's idem.Config.
type Config struct {
	Pool    *pgxpool.Pool // required
	Schema  string        // schema of the idempotency tables; "" follows the search_path
	Clock   Clock         // nil means the wall clock
	Observe func(Event)   // optional
	Logger  *slog.Logger  // nil means slog.Default(); keys are logged as hashes, never in clear
	// KeyHashSecret keys the hash that names a key in logs; empty means a
	// random secret drawn once per process.
	KeyHashSecret []byte
	// AcquireTimeout bounds the wait for a pool connection; past it the
	// request is answered 503 with Retry-After. 0 means the contract's
	// wait-timeout.
	AcquireTimeout time.Duration
	// AsRejection reports whether an error of a business function is a
	// business refusal, and which problem it answers with; nil means none
	// is.
	AsRejection func(error) (Rejection, bool)
	// Protocol is the store protocol of keyed operations; ProtocolAuto
	// (the zero value) chooses by the database engine.
	Protocol Protocol
}

// Executor runs operations in atomic mode: one transaction takes the key
// (by its advisory lock or by a claim row, see Protocol), claims the
// entity's natural key, runs the business function, stores the response
// and commits. Every database step of an operation is its own.
// It is safe for concurrent use. It has no exported methods: runtime/idem
// wraps it for services, and the handlers take it through Of.
type Executor struct {
	pool        *pgxpool.Pool
	store       *pgstore.Store
	clock       Clock
	observe     func(Event)
	log         *slog.Logger
	asRejection func(error) (Rejection, bool)
	keySecret   []byte
	acquireWait time.Duration
	flights     inflight
	hooks       faults.Hooks // set by InstallFaults in tests only

	schemaName string      // Config.Schema
	schemaOK   atomic.Bool // schema.Require passed once; checked before the first operation

	// protocol is Config.Protocol until requireSchema resolves
	// ProtocolAuto, before it sets schemaOK.
	protocol atomic.Int32
}

// New returns an Executor for cfg.
func New(cfg Config) (*Executor, error) {
	if cfg.Pool == nil {
		return nil, errors.New("idem: NewExecutor without a pool")
	}
	if cfg.AcquireTimeout < 0 {
		return nil, errors.New("idem: negative AcquireTimeout")
	}
	e := &Executor{pool: cfg.Pool, store: pgstore.New(cfg.Schema), clock: cfg.Clock, observe: cfg.Observe,
		log: cfg.Logger, asRejection: cfg.AsRejection, keySecret: cfg.KeyHashSecret, acquireWait: cfg.AcquireTimeout,
		schemaName: cfg.Schema}
	e.protocol.Store(int32(cfg.Protocol))
	if cfg.Protocol < ProtocolAuto || cfg.Protocol > ProtocolClaimFirst {
		return nil, fmt.Errorf("idem: unknown %v", cfg.Protocol)
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	if len(e.keySecret) == 0 {
		e.keySecret = idemkey.ProcessSecret()
	}
	if e.clock == nil {
		e.clock = systemClock{}
	}
	if e.asRejection == nil {
		e.asRejection = func(error) (Rejection, bool) { return Rejection{}, false }
	}
	return e, nil
}

// Holder is what holds an Executor: the Executor itself, and runtime/idem's
// Executor, which embeds it. Its method is unexported, so only this
// package's Executor can satisfy it, and a service cannot reach the
// executor inside idem.Executor.
type Holder interface {
	engineExecutor() *Executor
}

func (e *Executor) engineExecutor() *Executor { return e }

// Of returns the Executor h holds, nil when h is nil.
func Of(h Holder) *Executor {
	if h == nil {
		return nil
	}
	return h.engineExecutor()
}

// Call is one request to execute under a contract.
type Call struct {
	Scope       string          // from a trusted source, never the request body
	Key         string          // the parsed idempotency key; "" runs unprotected
	Fingerprint fingerprint.Sum // of the request's significant content
	// NaturalKey is the canonical JSON of the entity's natural-key fields;
	// "" when the contract declares none. It is claimed in the operation's
	// transaction before the business function runs.
	NaturalKey string
	Request    *Request
}

// Result is the answer to a Call.
type Result struct {
	Response    *Response
	OperationID string
	Replayed    bool // Response is the stored response of an earlier request
	Stored      bool // Response was stored with the record (new operations)
}

// execute runs call under c, a normalised contract. A call without a key
// runs unprotected. A new operation claims the key, runs fn and commits its
// response with the claim; a retry of a completed operation replays the
// stored response. Refusals are *RefusalError values wrapping
// ErrFingerprintMismatch, ErrInProgress, ErrExpired or ErrRequiresRecovery.
// An error from fn, or a panic in it, rolls everything back and frees the
// key; the panic is propagated after the rollback. Every other error is
// logged here, once; those a retry can overcome wrap ErrUnavailable.
func (e *Executor) execute(ctx context.Context, c *Contract, call Call, fn BusinessFunc) (*Result, error) {
	id, err := newUUID()
	if err != nil {
		return nil, err
	}
	op := &Operation{ID: formatUUID(id), Name: c.Operation, Scope: call.Scope, Key: call.Key, id: id, store: e.store, clock: e.clock}
	var res *Result
	switch err = e.requireSchema(ctx, c, call); {
	case err != nil:
	case call.Key == "":
		res, err = e.unprotected(ctx, c, call, op, fn)
	default:
		res, err = e.protected(ctx, c, call, op, fn)
	}
	var ref *RefusalError
	if err != nil && !errors.As(err, &ref) {
		e.logFailure(ctx, c, call, op.ID, classify(err), err)
		err = unavailable(err)
	}
	return res, err
}

// protected runs a call with a key.
func (e *Executor) protected(ctx context.Context, c *Contract, call Call, op *Operation, fn BusinessFunc) (*Result, error) {
	start := time.Now()
	now := e.clock.Now()
	leave, err := e.awaitFlight(ctx, c, call, start)
	if err != nil {
		return nil, err
	}
	defer leave()
	claim := pgstore.Claim{
		Scope: call.Scope, Key: call.Key, Fingerprint: call.Fingerprint[:], OperationID: op.id,
		CreatedAt: now, ExpiresAt: now.Add(c.Retention), PurgeAt: now.Add(c.Retention + c.Tombstone),
	}
	lockTimeout := c.lockTimeout()
	if c.Concurrency == ConcurrencyWait {
		lockTimeout = max(c.WaitTimeout-time.Since(start), time.Millisecond)
	}
	pc, err := e.acquire(ctx, c, call, start)
	if err != nil {
		return nil, err
	}
	defer pc.Release()
	if e.currentProtocol() == ProtocolAdvisory {
		return e.advisory(ctx, pc.Conn(), c, call, op, fn, claim, lockTimeout, start)
	}
	return e.claimFirst(ctx, pc.Conn(), c, call, op, fn, claim, lockTimeout, start)
}

// awaitFlight waits, without a connection, while this process runs
// another attempt with the call's key: up to the wait-timeout under
// ConcurrencyWait, not at all under ConcurrencyReject. It returns the
// function that ends the caller's own turn.
func (e *Executor) awaitFlight(ctx context.Context, c *Contract, call Call, start time.Time) (leave func(), err error) {
	for {
		leave, running := e.flights.enter(call.Scope, call.Key)
		if leave != nil {
			return leave, nil
		}
		if c.Concurrency == ConcurrencyReject {
			return nil, e.refuse(ctx, c, call, start, EventRejectInProgress, &RefusalError{Err: ErrInProgress, RetryAfter: c.retryAfter()})
		}
		_ = e.hooks.Run(ctx, faults.WaitingForFirst, "")
		remaining := c.WaitTimeout - time.Since(start)
		if remaining <= 0 {
			return nil, e.refuse(ctx, c, call, start, EventWaitTimeout, &RefusalError{Err: ErrInProgress, RetryAfter: c.retryAfter()})
		}
		timer := time.NewTimer(remaining)
		select {
		case <-running:
			timer.Stop()
		case <-timer.C:
			return nil, e.refuse(ctx, c, call, start, EventWaitTimeout, &RefusalError{Err: ErrInProgress, RetryAfter: c.retryAfter()})
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("idem: waiting for the first attempt: %w", context.Cause(ctx))
		}
	}
}

// acquire takes a pool connection, waiting at most the acquire timeout: a
// saturated pool is answered 503 with Retry-After, never an unbounded wait.
func (e *Executor) acquire(ctx context.Context, c *Contract, call Call, start time.Time) (*pgxpool.Conn, error) {
	d := e.acquireWait
	if d == 0 {
		d = c.WaitTimeout
	}
	actx, cancel := context.WithTimeoutCause(ctx, d, errSaturated)
	defer cancel()
	pc, err := e.pool.Acquire(actx)
	if err == nil {
		return pc, nil
	}
	if ctx.Err() == nil && errors.Is(context.Cause(actx), errSaturated) {
		err = fmt.Errorf("idem: %w (%s, %d of %d in use)", errSaturated, d, e.pool.Stat().AcquiredConns(), e.pool.Stat().MaxConns())
		e.emit(ctx, c, call, EventUnavailable, start, "", ClassSaturated)
		return nil, err
	}
	return nil, fmt.Errorf("idem: %w", err)
}

// run executes fn on the claimed key and commits or rolls back. A panic
// is logged and observed here, after the rollback, and propagated.
//
// Its end is the protocol's: under ProtocolAdvisory the record is written
// once, with the response, and a unique violation there (a record another
// transaction committed meanwhile, the primary key being the final
// arbiter) rolls the business back and answers from that record; under
// ProtocolClaimFirst the claimed record is updated with the response.
func (e *Executor) run(ctx context.Context, conn *pgx.Conn, tx *ownedTx, c *Contract, call Call, op *Operation, fn BusinessFunc, claim pgstore.Claim, savepoint bool, start time.Time) (res *Result, err error) {
	open := true
	defer func() {
		tx.closed.Store(true)
		if !open {
			return
		}
		rollback(ctx, conn) // an error return or a panic in fn or a hook
		class := classify(err)
		if p := recover(); p != nil {
			class = ClassPanic
			e.emit(ctx, c, call, EventRolledBack, start, op.ID, class)
			e.logFailure(ctx, c, call, op.ID, class, fmt.Errorf("idem: %s: panic: %v", c.Operation, p))
			panic(p)
		}
		e.emit(ctx, c, call, EventRolledBack, start, op.ID, class)
	}()
	if err := e.hooks.Run(ctx, faults.AfterClaim, op.ID); err != nil {
		return nil, err
	}
	resp, err := e.business(ctx, tx, c, call, op, fn)
	if err != nil {
		return nil, err
	}
	if err := e.hooks.Run(ctx, faults.AfterBusiness, op.ID); err != nil {
		return nil, err
	}
	state, storedFailure := pgstore.StateCompleted, false
	switch {
	case resp.Status >= 200 && resp.Status < 400:
	case c.storesFailure(resp.Status) && savepoint:
		state, storedFailure = pgstore.StateFailed, true
	default:
		return &Result{Response: resp, OperationID: op.ID}, nil // rolled back by the deferred func
	}
	header, err := storedHeader(resp, c.ReplayHeaders)
	if err != nil {
		return nil, err
	}
	completion := pgstore.Completion{
		Scope: call.Scope, Key: call.Key, OperationID: op.id, State: state,
		Status: resp.Status, Header: header, Body: resp.Body, CompletedAt: e.clock.Now(),
	}
	if err := e.complete(ctx, conn, claim, completion, storedFailure); err != nil {
		if e.currentProtocol() == ProtocolAdvisory && pgstore.IsUniqueViolation(err) {
			open = false
			tx.closed.Store(true)
			rollback(ctx, conn)
			return e.answerCommitted(ctx, conn, c, call, op, claim.CreatedAt, start)
		}
		return nil, fmt.Errorf("idem: %s: complete: %w", c.Operation, err)
	}
	open = false
	tx.closed.Store(true)
	e.emit(ctx, c, call, EventNew, start, op.ID, "")
	if e.observe != nil && !storedFailure { // a stored failure rolled the effects back with the business
		for _, name := range op.enqueued {
			e.observe(Event{Kind: EventEffectEnqueued, Operation: c.Operation, Effect: name})
		}
	}
	res = &Result{Response: resp, OperationID: op.ID, Stored: true}
	if err := e.hooks.Run(ctx, faults.AfterCommit, op.ID); err != nil {
		return res, err
	}
	return res, nil
}

// answer decides a retry from the committed record that holds its key.
func (e *Executor) answer(ctx context.Context, c *Contract, call Call, rec *pgstore.Record, now, start time.Time) (*Result, error) {
	opID := formatUUID(rec.OperationID)
	switch {
	case !bytes.Equal(rec.Fingerprint, call.Fingerprint[:]):
		return nil, e.refuse(ctx, c, call, start, EventConflict, &RefusalError{Err: ErrFingerprintMismatch})
	case rec.State == pgstore.StateTombstone || !now.Before(rec.ExpiresAt):
		return nil, e.refuse(ctx, c, call, start, EventExpired, &RefusalError{Err: ErrExpired, OperationID: opID})
	case rec.State == pgstore.StateRequiresRecovery:
		return nil, e.refuse(ctx, c, call, start, EventRequiresRecovery, &RefusalError{Err: ErrRequiresRecovery, OperationID: opID})
	case rec.State != pgstore.StateCompleted && rec.State != pgstore.StateFailed:
		return nil, e.refuse(ctx, c, call, start, inProgressEvent(c), &RefusalError{Err: ErrInProgress, OperationID: opID, RetryAfter: c.retryAfter()})
	}
	header := http.Header{}
	if len(rec.Header) > 0 {
		if err := json.Unmarshal(rec.Header, &header); err != nil {
			return nil, fmt.Errorf("idem: stored header of operation %s: %w", opID, err)
		}
	}
	if rec.CompletedAt.After(now) {
		e.emit(ctx, c, call, EventWaited, start, opID, "")
	}
	e.emit(ctx, c, call, EventReplay, start, opID, "")
	return &Result{Response: &Response{Status: rec.Status, Header: header, Body: rec.Body}, OperationID: opID, Replayed: true}, nil
}

func inProgressEvent(c *Contract) EventKind {
	if c.Concurrency == ConcurrencyReject {
		return EventRejectInProgress
	}
	return EventWaitTimeout
}

func (e *Executor) refuse(ctx context.Context, c *Contract, call Call, start time.Time, kind EventKind, err *RefusalError) error {
	e.emit(ctx, c, call, kind, start, err.OperationID, "")
	return err
}

func (e *Executor) emit(ctx context.Context, c *Contract, call Call, kind EventKind, start time.Time, opID string, class ErrorClass) {
	d := time.Since(start)
	if e.observe != nil {
		e.observe(Event{Kind: kind, Operation: c.Operation, Duration: d, Class: class})
	}
	if !e.log.Enabled(ctx, slog.LevelDebug) {
		return // spares the key's HMAC on every call when debug logging is off
	}
	e.log.LogAttrs(ctx, slog.LevelDebug, "idempotent operation",
		slog.String("operation", c.Operation), slog.String("outcome", kind.String()),
		slog.String("key_hash", e.keyHash(call.Scope, call.Key)), slog.String("operation_id", opID),
		slog.Duration("duration", d))
}

// storedHeader encodes the headers of resp kept for replays: Content-Type,
// the response's typed headers and the contract's ReplayHeaders.
func storedHeader(resp *Response, replay []string) ([]byte, error) {
	kept := http.Header{}
	names := append(append([]string{"Content-Type"}, resp.Typed...), replay...)
	for _, name := range names {
		if v := resp.Header.Values(name); len(v) > 0 {
			kept[http.CanonicalHeaderKey(name)] = v
		}
	}
	return json.Marshal(kept)
}

// rollback ends the connection's transaction. It runs even when ctx is
// done; a connection that cannot roll back is left for the pool to discard
// (pgxpool destroys a connection released inside a transaction).
func rollback(ctx context.Context, conn *pgx.Conn) {
	if conn.IsClosed() || conn.PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
		_ = conn.Close(ctx)
	}
}

func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// isSerializationFailure reports SQLSTATE 40001 (serialization_failure).
func isSerializationFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40001"
}

func newUUID() ([16]byte, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return u, fmt.Errorf("idem: operation id: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u, nil
}

func formatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// currentProtocol returns the store protocol of keyed operations: the one
// configured, or once an operation has run, the one ProtocolAuto chose.
func (e *Executor) currentProtocol() Protocol { return Protocol(e.protocol.Load()) }

// requireSchema refuses to run operations on a database whose idempotency
// tables are older than this runtime needs, with the message schema.Require
// gives (which migration to run), and resolves ProtocolAuto. It reads the version on a connection
// taken like an operation's, so a saturated pool answers 503 here too.
// Only success is remembered, so a transient error is retried by the next
// operation.
func (e *Executor) requireSchema(ctx context.Context, c *Contract, call Call) error {
	if e.schemaOK.Load() {
		return nil
	}
	pc, err := e.acquire(ctx, c, call, time.Now())
	if err != nil {
		return err
	}
	defer pc.Release()
	if err := schema.Require(ctx, pc.Conn(), e.schemaName); err != nil {
		return fmt.Errorf("idem: %w", err)
	}
	if e.currentProtocol() == ProtocolAuto {
		p, err := detectProtocol(ctx, pc.Conn())
		if err != nil {
			return err
		}
		e.protocol.Store(int32(p))
	}
	e.schemaOK.Store(true)
	return nil
}
