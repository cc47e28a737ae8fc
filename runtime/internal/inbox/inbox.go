package inbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
	"github.com/idemgen/idemgen/runtime/internal/inbox/internal/sqlcdb"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/internal/tables"
	"github.com/idemgen/idemgen/runtime/schema"
)

// DefaultWaitTimeout bounds the wait for a concurrent delivery of the same
// message when Config.WaitTimeout is 0.
const DefaultWaitTimeout = 30 * time.Second

// ErrBusy is returned by Deliver when another delivery of the message held
// it past the wait timeout, or a lock on the inbox table (DDL, VACUUM
// FULL, LOCK TABLE in another session) outlasted it while the message was
// read, claimed or its failed attempt counted: nothing was done (no attempt
// counted), the message is to be redelivered.
var ErrBusy = errors.New("idem: another delivery of the message is running")

// ErrInvalidMessage is wrapped by Deliver's error for a message without a
// source or with an id idemkey.Check refuses (empty, longer than
// MaxIDLength, not UTF-8, a control character; the error wraps
// idemkey.ErrMalformed too): it can never be processed, and nothing of it
// is kept.
var ErrInvalidMessage = errors.New("idem: invalid message")

// Message is one delivery of a message.
type Message struct {
	// Source is where the message comes from, the scope of its id: the
	// webhook's sender, or the broker's stream or queue.
	Source string
	// ID is the message's own identity, stable across redeliveries:
	// webhook-id, a broker's message id, a body field. Never a hash of
	// the body.
	ID string
	// Body is the message's payload as delivered; its SHA-256 is the
	// message's fingerprint.
	Body []byte
	// TraceContext is the W3C traceparent the message carried, stored with
	// the effects the handler enqueues; "" for none.
	TraceContext string
}

// Func handles a message in the inbox's transaction: what it does through
// tx commits with the message's inbox row, or not at all. op enqueues the
// handler's effects to the outbox (op.Enqueue). tx's Commit and Rollback
// fail with core.ErrTxOwnedByExecutor. Returning an error rolls everything
// back and counts a failed attempt.
type Func func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *Message) error

// Config configures a Consumer.
type Config struct {
	// Executor supplies the pool and the schema of the tables. The inbox's
	// times are the database's, never the executor's Clock.
	Executor *core.Executor
	// Name names the consumer: one message may be consumed by several,
	// each processing it once.
	Name string
	// MaxAttempts is the poison policy: the failed attempts after which a
	// message is dead. At least 1.
	MaxAttempts int
	// Retention is how long a processed message's row is kept: a
	// redelivery within it is a duplicate. It must outlast the sender's
	// retry horizon.
	Retention time.Duration
	// WaitTimeout bounds the waits for a concurrent delivery of the same
	// message and for a lock on the inbox table (then ErrBusy): those
	// before the handler runs (reading the message, preparing and taking
	// the claim) together, and counting a failure again; 0 means
	// DefaultWaitTimeout.
	WaitTimeout time.Duration
	// MaxIDLength is the longest message id accepted, in bytes (the
	// contract's key.max-length); 0 means defaults.KeyMaxLength.
	MaxIDLength int
	// Handler handles each message.
	Handler Func
}

// Consumer delivers messages to its handler at most once per message id
// and source. It is safe for concurrent use.
type Consumer struct {
	cfg      Config
	tables   *tables.Schema
	schemaOK atomic.Bool

	// The statements sent in batches, in the executor's schema.
	getMessage, lockMessage, claimMessage, recordFailure string
}

// New returns the Consumer of cfg, registered with its executor so that
// the executor's Maintain delivers the messages support retried (Redrive).
func New(cfg Config) (*Consumer, error) {
	switch {
	case cfg.Executor == nil:
		return nil, errors.New("idem: consumer without an executor")
	case cfg.Name == "":
		return nil, errors.New("idem: consumer without a name")
	case cfg.Handler == nil:
		return nil, fmt.Errorf("idem: consumer %s without a handler", cfg.Name)
	case cfg.MaxAttempts < 1:
		return nil, fmt.Errorf("idem: consumer %s: MaxAttempts %d, want at least 1", cfg.Name, cfg.MaxAttempts)
	case cfg.Retention <= 0:
		return nil, fmt.Errorf("idem: consumer %s: Retention %v, want more than 0", cfg.Name, cfg.Retention)
	case cfg.WaitTimeout < 0:
		return nil, fmt.Errorf("idem: consumer %s: negative WaitTimeout", cfg.Name)
	case cfg.MaxIDLength < 0:
		return nil, fmt.Errorf("idem: consumer %s: negative MaxIDLength", cfg.Name)
	}
	if cfg.WaitTimeout == 0 {
		cfg.WaitTimeout = DefaultWaitTimeout
	}
	if cfg.MaxIDLength == 0 {
		cfg.MaxIDLength = defaults.KeyMaxLength
	}
	name := core.SchemaOf(cfg.Executor)
	c := &Consumer{cfg: cfg, tables: tables.NewSchema(name), getMessage: tables.Qualify(name, sqlcdb.GetMessage),
		lockMessage:  tables.Qualify(name, sqlcdb.LockMessage),
		claimMessage: tables.Qualify(name, sqlcdb.ClaimMessage), recordFailure: tables.Qualify(name, sqlcdb.RecordFailure)}
	if err := core.RegisterMessageRedriver(cfg.Executor, cfg.Name, c.redriveAll); err != nil {
		return nil, err
	}
	return c, nil
}

// Name returns the consumer's name.
func (c *Consumer) Name() string { return c.cfg.Name }

// Deliver hands m to the handler unless the inbox has decided it already,
// and returns what became of it. An error (the database unreachable,
// ErrBusy, the context ended) means nothing was decided: the message is
// to be redelivered, and no attempt was counted. A panic in the handler
// rolls its transaction back and is propagated.
func (c *Consumer) Deliver(ctx context.Context, m Message) (Result, error) {
	if m.Source == "" {
		return Result{}, fmt.Errorf("%w: the message needs a source", ErrInvalidMessage)
	}
	if err := idemkey.Check("the message id", m.ID, c.cfg.MaxIDLength); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInvalidMessage, err)
	}
	if err := c.requireSchema(ctx); err != nil {
		return Result{}, err
	}
	d := delivery{consumer: c.cfg.Name, msg: &m, fingerprint: sha256.Sum256(m.Body), id: operationID(m.Source, c.cfg.Name, m.ID)}
	pc, err := core.PoolOf(c.cfg.Executor).Acquire(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("idem: consumer %s: %w", c.cfg.Name, err)
	}
	d.waitsEnd = time.Now().Add(c.cfg.WaitTimeout)
	defer pc.Release()
	conn := pc.Conn()
	if r, ok, err := c.lookup(ctx, conn, conn, &d); ok || err != nil {
		return r, err
	}
	return c.run(ctx, conn, &d)
}

// lookup reads d's inbox row and returns the answer it gives, ok false
// when the handler is to run.
//
// One round trip: BoundLockWaits and GetMessage, an implicit transaction
// of their own outside the claim's, so that the bound ends with it. GetMessage
// waits for no row, but for the inbox table's lock when a session holds
// it ACCESS EXCLUSIVE (ALTER TABLE, VACUUM FULL): that wait lasts at most
// what is left of d's WaitTimeout (delivery.waitBound), and no longer
// than ctx's deadline allows, as claim's do,
// and the server ends it (55P03), answered as claim answers it: ErrBusy,
// or the deadline's error. Before the bound a broker consumer's read,
// whose context has no end, waited as long as the lock lasted. The
// first read on conn prepares its statement, bounded alike
// (pgstore.SendPrepared); s is conn or the claim's transaction on it.
func (c *Consumer) lookup(ctx context.Context, conn *pgx.Conn, s pgstore.BatchSender, d *delivery) (r Result, ok bool, err error) {
	wait, byDeadline := d.waitBound(ctx)
	b := &pgx.Batch{}
	pgstore.QueueBoundLockWaits(b, wait)
	b.Queue(c.getMessage, d.msg.Source, c.cfg.Name, d.msg.ID)
	br := pgstore.SendPrepared(ctx, conn, s, wait, b)
	row, err := readMessage(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	switch {
	case err == nil:
		r, ok = d.decided(row)
		return r, ok, nil
	case errors.Is(err, pgx.ErrNoRows):
		return Result{}, false, nil
	}
	return Result{}, false, c.waitError(err, byDeadline, d, "reading the inbox")
}

// readMessage reads the results of lookup's batch: pgx.ErrNoRows when the
// inbox has no row of the message.
func readMessage(br pgx.BatchResults) (row sqlcdb.GetMessageRow, err error) {
	if _, err := br.Exec(); err != nil { // BoundLockWaits
		return row, err
	}
	err = br.QueryRow().Scan(&row.State, &row.Fingerprint, &row.Attempts, &row.OperationID)
	return row, err
}

// requireSchema checks once that the schema has the inbox.
func (c *Consumer) requireSchema(ctx context.Context) error {
	if c.schemaOK.Load() {
		return nil
	}
	e := c.cfg.Executor
	if err := schema.Require(ctx, core.PoolOf(e), core.SchemaOf(e)); err != nil {
		return fmt.Errorf("idem: %w", err)
	}
	c.schemaOK.Store(true)
	return nil
}

// run delivers d on conn in a transaction holding the message's lock.
// The claim's statements are prepared on conn first, outside the
// transaction, under the claim's bound (pgstore.PrepareBounded: a lookup
// once conn has them).
func (c *Consumer) run(ctx context.Context, conn *pgx.Conn, d *delivery) (Result, error) {
	wait, byDeadline := d.waitBound(ctx)
	if err := pgstore.PrepareBounded(ctx, conn, wait, c.lockMessage, c.claimMessage); err != nil {
		return Result{}, c.waitError(err, byDeadline, d, "claiming the message")
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("idem: consumer %s: %w", c.cfg.Name, err)
	}
	done := false
	defer func() {
		if !done {
			rollback(ctx, tx)
		}
	}()
	attempts, r, claimed, err := c.claim(ctx, conn, tx, d)
	if !claimed || err != nil {
		return r, err
	}

	op := core.MessageOperation(c.cfg.Executor, c.cfg.Name, d.msg.Source, d.msg.ID, d.id, d.msg.TraceContext)
	owned, closeTx := core.OwnedTx(tx)
	herr := func() error {
		defer closeTx()
		return c.cfg.Handler(ctx, owned, op, d.msg)
	}()
	if herr != nil {
		done = true
		rollback(ctx, tx)
		return c.fail(ctx, conn, d, herr)
	}
	done = true
	if err := tx.Commit(ctx); err != nil {
		// The commit's outcome is unknown: a redelivery finds the row if
		// it committed, and runs the handler again if it did not.
		return Result{}, fmt.Errorf("idem: consumer %s: commit: %w", c.cfg.Name, err)
	}
	return Result{Outcome: Processed, Attempts: int(attempts), OperationID: op.ID}, nil
}

// claim takes the message's advisory lock and writes d's inbox row as
// processed, under that lock and before the handler runs, and returns its
// attempts; the row commits with the handler's changes or not at all.
// claimed false means the inbox had decided the message meanwhile (or
// holds its id with another body): r is the answer.
//
// One round trip: BoundLockWaits, LockMessage, ClaimMessage. Each lock
// wait, for a concurrent delivery of the message and for the inbox
// table's lock, lasts at most what is left of d's WaitTimeout, which the
// first read and the preparation may have spent in part, and no longer
// than ctx's deadline allows (delivery.waitBound): the server ends it
// then (55P03), and
// that is ErrBusy, or the deadline's error when the deadline bounded it,
// as when the client's own deadline ends the wait.
func (c *Consumer) claim(ctx context.Context, conn *pgx.Conn, tx pgx.Tx, d *delivery) (attempts int32, r Result, claimed bool, err error) {
	wait, byDeadline := d.waitBound(ctx)
	b := &pgx.Batch{}
	pgstore.QueueBoundLockWaits(b, wait)
	b.Queue(c.lockMessage, d.msg.Source, c.cfg.Name, d.msg.ID)
	b.Queue(c.claimMessage, d.msg.Source, c.cfg.Name, d.msg.ID, d.uuid(), d.fingerprint[:], int32(c.cfg.MaxAttempts),
		c.cfg.Retention.Seconds())
	br := pgstore.SendPrepared(ctx, conn, tx, wait, b)
	err = readClaim(br, &attempts)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	switch {
	case err == nil:
		return attempts, Result{}, true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return 0, Result{}, false, c.waitError(err, byDeadline, d, "claiming the message")
	}
	r, ok, err := c.lookup(ctx, conn, tx, d)
	if err == nil && !ok {
		err = fmt.Errorf("idem: consumer %s, message %q: the inbox row is neither claimable nor decided", c.cfg.Name, d.msg.ID)
	}
	return 0, r, false, err
}

// readClaim reads the results of claim's batch: pgx.ErrNoRows when
// ClaimMessage left the row as it was.
func readClaim(br pgx.BatchResults, attempts *int32) error {
	if _, err := br.Exec(); err != nil { // BoundLockWaits
		return err
	}
	if _, err := br.Exec(); err != nil { // LockMessage
		return err
	}
	var restored string
	return br.QueryRow().Scan(attempts, &restored)
}

// waitError is the error of a statement that failed while doing what:
// ErrBusy when the server ended a lock wait bounded by WaitTimeout, the
// deadline's error when ctx's deadline bounded it (byDeadline).
func (c *Consumer) waitError(err error, byDeadline bool, d *delivery, what string) error {
	switch {
	case pgstore.IsLockTimeout(err) && byDeadline:
		return fmt.Errorf("idem: consumer %s: %s: %w (the server ended the wait at the deadline: %w)",
			c.cfg.Name, what, context.DeadlineExceeded, err)
	case pgstore.IsLockTimeout(err):
		return fmt.Errorf("idem: consumer %s, message %q: %w (%s: %w)", c.cfg.Name, d.msg.ID, ErrBusy, what, err)
	}
	return fmt.Errorf("idem: consumer %s: %s: %w", c.cfg.Name, what, err)
}

// fail counts the failed attempt herr in a short transaction of its own
// (BoundLockWaits and RecordFailure, one round trip and one implicit
// transaction), its lock waits bounded as claim's are; the handler's has
// rolled back. A context that ended is no failure of the message, nor is
// a wait the server ended: nothing is counted and the error is returned.
func (c *Consumer) fail(ctx context.Context, conn *pgx.Conn, d *delivery, herr error) (Result, error) {
	if ctx.Err() != nil {
		return Result{}, fmt.Errorf("idem: consumer %s: %w", c.cfg.Name, context.Cause(ctx))
	}
	// Counting the failure, and reading the message again when a
	// concurrent delivery decided it, wait anew: the handler ran since.
	d.waitsEnd = time.Now().Add(c.cfg.WaitTimeout)
	wait, byDeadline := d.waitBound(ctx)
	b := &pgx.Batch{}
	pgstore.QueueBoundLockWaits(b, wait)
	b.Queue(c.recordFailure, d.msg.Source, c.cfg.Name, d.msg.ID, d.uuid(), int32(c.cfg.MaxAttempts), d.fingerprint[:],
		herr.Error(), d.msg.Body)
	br := pgstore.SendPrepared(ctx, conn, conn, wait, b)
	row, err := readFailure(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, pgx.ErrNoRows) {
		// A concurrent delivery decided the message meanwhile.
		r, _, err := c.lookup(ctx, conn, conn, d)
		return r, err
	}
	if err != nil {
		return Result{}, c.waitError(err, byDeadline, d, fmt.Sprintf("counting a failed attempt (%v)", herr))
	}
	r := Result{Outcome: Retry, Attempts: int(row.Attempts), OperationID: d.operationID(), Err: herr}
	if row.State == stateDead {
		r.Outcome = DeadLettered
	}
	return r, nil
}

// readFailure reads the results of fail's batch: pgx.ErrNoRows when
// RecordFailure left the row as it was.
func readFailure(br pgx.BatchResults) (row sqlcdb.RecordFailureRow, err error) {
	if _, err := br.Exec(); err != nil { // BoundLockWaits
		return row, err
	}
	err = br.QueryRow().Scan(&row.State, &row.Attempts)
	return row, err
}

// The inbox row's states (step 6 of runtime/schema).
const (
	stateProcessed = "processed"
	stateDead      = "dead"
)

// delivery is one Deliver call's message and what is derived from it.
type delivery struct {
	consumer    string
	msg         *Message
	fingerprint [sha256.Size]byte
	id          [16]byte // the operation id
	// waitsEnd is when the delivery's lock waits must have ended: the
	// consumer's WaitTimeout after they began, so that reading, preparing
	// and claiming share it instead of each waiting that long.
	waitsEnd time.Time
}

// waitBound is how long d's next statement may wait for a lock: what is
// left of its WaitTimeout, and no longer than ctx's deadline allows
// (core.WaitBound, at least a millisecond). byDeadline reports whether
// the deadline bounded it.
func (d *delivery) waitBound(ctx context.Context) (_ time.Duration, byDeadline bool) {
	return core.WaitBound(ctx, time.Until(d.waitsEnd))
}

func (d *delivery) uuid() pgtype.UUID { return pgtype.UUID{Bytes: d.id, Valid: true} }

func (d *delivery) operationID() string {
	u := d.id
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
}

// decided returns the answer row gives d without running the handler, and
// false when the handler is to run (no row, or failed attempts below the
// limit, or support's retry).
func (d *delivery) decided(row sqlcdb.GetMessageRow) (Result, bool) {
	r := Result{Attempts: int(row.Attempts), OperationID: d.operationID()}
	switch {
	case string(row.Fingerprint) != string(d.fingerprint[:]):
		r.Outcome = Mismatch
	case row.State == stateProcessed:
		r.Outcome = Duplicate
	case row.State == stateDead:
		r.Outcome = DeadLettered
	default: // failed, retry
		return Result{}, false
	}
	return r, true
}

// rollback ends tx, bounded in time even when ctx has ended.
func rollback(ctx context.Context, tx pgx.Tx) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = tx.Rollback(ctx)
}
