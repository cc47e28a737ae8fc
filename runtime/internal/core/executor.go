package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/internal/tracing"
	"github.com/idemgen/idemgen/runtime/schema"
)

// Config configures an Executor. runtime/idem builds it from the
// service's idem.Config.
type Config struct {
	Pool    *pgxpool.Pool  // required
	Schema  string         // schema of the idempotency tables; "" follows the search_path
	Clock   Clock          // nil means the wall clock
	Observe func(Event)    // optional
	Tracer  tracing.Tracer // nil records no spans
	Logger  *slog.Logger   // nil means slog.Default(); keys are logged as hashes, never in clear
	// KeyHashSecret keys the hash that names a key in logs; empty means a
	// random secret drawn once per process.
	KeyHashSecret []byte
	// AcquireTimeout bounds the wait for a pool connection; past it the
	// attempt fails with ErrUnavailable. 0 means the policy's
	// wait-timeout.
	AcquireTimeout time.Duration
	// Protocol is the store protocol of keyed operations; ProtocolAuto
	// (the zero value) chooses by the database engine.
	Protocol Protocol
	// ReplayCacheBytes bounds the memory of decided records kept to answer
	// retries without the database (replayCache): 0 is
	// DefaultReplayCacheBytes, a negative value keeps none.
	ReplayCacheBytes int64
	// ScopeShare bounds the operations one scope runs at once (holding or
	// waiting for a connection); one more waits for a place until the
	// acquire deadline, then is refused with ErrScopeBusy. 0 is the pool's
	// MaxConns but one, at least 1; negative is no bound.
	ScopeShare int
}

// Executor runs attempts (Execute): it takes the key (by its advisory
// lock or by a claim row, see Protocol), runs the Func in the transaction
// that holds it and stores its decision. Every database step of an
// operation is its own. It is safe for concurrent use. runtime/idem wraps
// it for services, and adapters reach it through Of.
type Executor struct {
	pool        *pgxpool.Pool
	store       *pgstore.Store
	clock       Clock
	observe     func(Event)
	tracer      tracing.Tracer
	replays     *replayCache // nil when Config.ReplayCacheBytes < 0
	shares      *scopeShares // nil when Config.ScopeShare < 0
	log         *slog.Logger
	keySecret   []byte
	acquireWait time.Duration
	flights     inflight
	hooks       faults.Hooks              // set by InstallFaults in tests only
	resumers    registry[Resumer]         // the completer's, by operation name (RegisterResumer)
	redrivers   registry[MessageRedriver] // Maintain's, by consumer name (RegisterMessageRedriver)

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
		log: cfg.Logger, keySecret: cfg.KeyHashSecret, acquireWait: cfg.AcquireTimeout, schemaName: cfg.Schema}
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
	e.replays = newReplayCache(cfg.ReplayCacheBytes)
	e.shares = newScopeShares(cfg.ScopeShare, cfg.Pool.Config().MaxConns)
	e.tracer = cfg.Tracer
	if e.tracer == nil {
		e.tracer = tracing.Noop{}
	}
	return e, nil
}

// Holder is what holds an Executor: the Executor itself, and runtime/idem's
// Executor, which embeds it. Its method is unexported, so only this
// package's Executor can satisfy it, and a service cannot reach the
// executor inside idem.Executor; adapters reach it through Of.
type Holder interface {
	coreExecutor() *Executor
}

func (e *Executor) coreExecutor() *Executor { return e }

// Of returns the Executor h holds, nil when h is nil.
func Of(h Holder) *Executor {
	if h == nil {
		return nil
	}
	return h.coreExecutor()
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
func (e *Executor) requireSchema(ctx context.Context, at *attempt) error {
	if e.schemaOK.Load() {
		return nil
	}
	pc, err := e.acquire(ctx, at)
	if err != nil {
		return err
	}
	defer pc.Release()
	return e.requireSchemaOn(ctx, pc.Conn())
}

// requireSchemaOn is requireSchema on a connection the caller holds.
func (e *Executor) requireSchemaOn(ctx context.Context, conn *pgx.Conn) error {
	if err := schema.Require(ctx, conn, e.schemaName); err != nil {
		return fmt.Errorf("idem: %w", err)
	}
	if e.currentProtocol() == ProtocolAuto {
		p, err := detectProtocol(ctx, conn)
		if err != nil {
			return err
		}
		e.protocol.Store(int32(p))
	}
	e.schemaOK.Store(true)
	return nil
}
