package idem

import (
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// Config configures an Executor.
type Config struct {
	Pool     *pgxpool.Pool // required
	Schema   string        // schema of the idempotency tables; "" follows the search_path
	Clock    Clock         // this host's clock, which decides no deadline (see Clock); nil means SystemClock
	Observer Observer      // optional
	Tracer   Tracer        // spans of each attempt (runtime/idemotel); nil records none
	// Logger receives one record per failed operation (Error for a 500,
	// with the whole error chain; Warn for a 503) and a Debug record per
	// request; nil means slog.Default(). Keys appear only as KeyHashSecret
	// keyed hashes.
	Logger *slog.Logger
	// KeyHashSecret keys the hash that names an idempotency key in logs
	// (HMAC-SHA-256), so that a guessable key cannot be recovered from
	// them. Empty means a random secret drawn once per process: hashes then
	// match within one process only; set a per-deployment secret to
	// correlate them across instances.
	KeyHashSecret []byte
	// AcquireTimeout bounds the wait for a pool connection; past it the
	// request is answered 503 temporarily-unavailable with Retry-After. 0
	// means the contract's wait-timeout: a burst queues for a connection as
	// long as a duplicate may wait for its first attempt, and no longer.
	AcquireTimeout time.Duration
	// Protocol is the store protocol of keyed operations; ProtocolAuto,
	// the zero value, chooses by the database engine. Every instance
	// serving one database must run the same protocol: a claim-first
	// instance and an advisory one do not wait for each other, and then
	// only the record's primary key keeps a duplicate from committing
	// (the later one is rolled back and answered from the record).
	Protocol Protocol
	// ReplayCacheBytes bounds the memory of decided operations' records
	// kept to answer retries with no database round trip and no
	// connection: a record read once is replayed from memory until its
	// retention ends, the least recently used dropped past the bound. A
	// decided record never changes within its retention, so a cached
	// replay, or conflict, is what the database would answer; past
	// retention the database decides. 0 means 32 MiB; a negative value
	// keeps none.
	ReplayCacheBytes int64
	// ScopeShare is how many operations one scope (tenant) may run at
	// once, so that one tenant's slow or many operations cannot hold every
	// connection while another's wait: a scope at its share waits for a
	// place (not in the pool's queue, so that a freed connection goes to
	// another scope first) and past the acquire deadline is answered 429
	// scope-busy with Retry-After, nothing kept. 0 means the pool's
	// MaxConns but one (at least 1): one connection always stays for the
	// other scopes. A service with a single scope loses nothing with -1,
	// no share.
	ScopeShare int
}

// coreExecutor names the runtime's executor for embedding: an embedded
// field of an unexported name, so a service cannot reach it.
type coreExecutor = core.Executor

// Executor runs idempotent operations in atomic mode: one transaction
// takes the key (see Protocol), runs the business method, stores the
// response and commits. It is safe for concurrent use; a service builds one and passes
// it to the generated Register or Routes.
type Executor struct {
	*coreExecutor
}

// NewExecutor returns an Executor for cfg.
func NewExecutor(cfg Config) (*Executor, error) {
	ec := core.Config{Pool: cfg.Pool, Schema: cfg.Schema, Clock: cfg.Clock, Logger: cfg.Logger,
		KeyHashSecret: cfg.KeyHashSecret, AcquireTimeout: cfg.AcquireTimeout, Protocol: core.Protocol(cfg.Protocol),
		Tracer: cfg.Tracer, ReplayCacheBytes: cfg.ReplayCacheBytes, ScopeShare: cfg.ScopeShare}
	if o := cfg.Observer; o != nil {
		ec.Observe = func(ev core.Event) {
			o.Observe(Event{Kind: EventKind(ev.Kind), Operation: ev.Operation, Duration: ev.Duration, Class: ErrorClass(ev.Class), Effect: ev.Effect})
		}
	}
	e, err := core.New(ec)
	if err != nil {
		return nil, err
	}
	return &Executor{e}, nil
}
