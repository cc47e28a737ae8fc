package outbox

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/internal/outbox/internal/sqlcdb"
)

// finished is an attempt whose call ended, with the verdict to record.
type finished struct {
	c      claimed
	v      verdict
	delay  time.Duration // until the effect is due again, on the database's clock
	at     time.Time     // Config.Now when the verdict was reached: the attempt's finished_at
	handed time.Time     // when it was handed to the recorder (monotonic)
}

// attemptKey names one attempt: an effect and the fencing token of its
// claim.
type attemptKey struct {
	scope       string
	operationID pgtype.UUID
	seq         int32
	token       int64
}

func (f *finished) key() attemptKey {
	return attemptKey{scope: f.c.scope, operationID: f.c.operationID, seq: f.c.seq, token: f.c.token}
}

// recorder records the outcomes of finished attempts in batches, one
// statement (RecordOutcomes) for up to RecordBatch of them, each row under
// its own fencing token. A batch goes out when RecordBatch outcomes wait,
// when the oldest has waited RecordDelay, or when the recordBy of one
// comes (the end of its call's time, so that the lease's last tenth is
// left for the statement), whichever is first, and on stop. One statement
// is in flight at a time; outcomes handed over meanwhile wait for the
// next. At most two batches' worth are held, sent or waiting: a call's
// slot stays taken until its outcome is accepted, so a worker whose
// records lag claims no more.
type recorder struct {
	w    *Worker
	ctx  context.Context // Run's values; never cancelled: only the fencing token decides
	room chan struct{}   // one token per outcome accepted and not yet recorded
	kick chan struct{}   // wakes run: an outcome was accepted, or stop was called
	done chan struct{}   // closed when run returns

	mu       sync.Mutex
	waiting  []finished
	stopping bool // record everything that waits, then close
	closed   bool // accept nothing more
}

func (w *Worker) newRecorder(ctx context.Context) *recorder {
	return &recorder{w: w, ctx: context.WithoutCancel(ctx), room: make(chan struct{}, 2*w.cfg.RecordBatch),
		kick: make(chan struct{}, 1), done: make(chan struct{})}
}

// add hands f over to be recorded; it waits while two batches' worth are
// held. It reports false once stop has recorded everything and closed:
// f is then not recorded, and its effect is left to its lease.
func (r *recorder) add(f finished) bool {
	r.room <- struct{}{}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.room
		return false
	}
	f.handed = time.Now()
	r.waiting = append(r.waiting, f)
	r.mu.Unlock()
	r.wake()
	return true
}

func (r *recorder) wake() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// stop records every outcome accepted so far, refuses later ones and
// returns when the last statement has ended.
func (r *recorder) stop() {
	r.mu.Lock()
	r.stopping = true
	r.mu.Unlock()
	r.wake()
	<-r.done
}

// run sends the batches until stop.
func (r *recorder) run() {
	defer close(r.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		batch, wait, closed := r.next(time.Now())
		if len(batch) > 0 {
			r.record(batch)
			for range batch {
				<-r.room
			}
			continue
		}
		if closed {
			return
		}
		var due <-chan time.Time
		if wait > 0 {
			timer.Reset(wait)
			due = timer.C
		}
		select {
		case <-r.kick:
		case <-due:
		}
		timer.Stop()
	}
}

// next takes the batch to send at now, if one is due; otherwise it says
// how long until one is (0: nothing waits) and whether the recorder has
// closed.
func (r *recorder) next(now time.Time) (batch []finished, wait time.Duration, closed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.waiting) == 0 {
		if r.stopping {
			r.closed = true
		}
		return nil, 0, r.closed
	}
	due := r.waiting[0].handed.Add(r.w.cfg.RecordDelay)
	for i := range r.waiting {
		if by := r.waiting[i].c.recordBy; by.Before(due) {
			due = by
		}
	}
	if len(r.waiting) < r.w.cfg.RecordBatch && !r.stopping && now.Before(due) {
		return nil, due.Sub(now), false
	}
	n := min(len(r.waiting), r.w.cfg.RecordBatch)
	batch = make([]finished, n)
	copy(batch, r.waiting)
	r.waiting = append(r.waiting[:0], r.waiting[n:]...)
	return batch, 0, false
}

// record sends one batch and reports each outcome: recorded, or refused
// because another worker took the effect's lease over. A statement that
// fails records none of them; their leases hand them on.
//
// The statement has the lease's last tenth, left for it by recordBy, and
// a second more for its answer to come back. Its lock waits, for a row
// and for a table's lock (DDL, VACUUM FULL, LOCK TABLE in another
// session), are bounded on the server at that tenth: BoundLockWaits goes
// first in the same round trip, so the server ends the wait (SQLSTATE
// 55P03) before the client's deadline would, and no backend goes on
// waiting after the worker gave the batch up.
func (r *recorder) record(batch []finished) {
	w := r.w
	p := sqlcdb.RecordOutcomesParams{}
	for i := range batch {
		f := &batch[i]
		p.Scopes = append(p.Scopes, f.c.scope)
		p.OperationIds = append(p.OperationIds, f.c.operationID)
		p.Seqs = append(p.Seqs, f.c.seq)
		p.FencingTokens = append(p.FencingTokens, f.c.token)
		p.States = append(p.States, f.v.state)
		p.Delays = append(p.Delays, f.delay.Seconds())
		p.Outcomes = append(p.Outcomes, f.v.outcome)
		p.Errors = append(p.Errors, storableText(f.v.err))
		p.Kinds = append(p.Kinds, f.v.kind)
		p.FinishedAts = append(p.FinishedAts, timestamptz(f.at))
	}
	ctx, cancel := context.WithTimeout(r.ctx, w.cfg.Lease/10+time.Second)
	defer cancel()
	rows, err := w.bounded(w.cfg.Lease/10).RecordOutcomes(ctx, p)
	if err != nil {
		for i := range batch {
			w.attemptLog(batch[i].c).Error("idem: recording an effect's outcome; the lease will hand it on",
				"outcome", batch[i].v.outcome, "err", err)
		}
		return
	}
	recorded := make(map[attemptKey]bool, len(rows))
	for _, row := range rows {
		recorded[attemptKey{scope: row.Scope, operationID: row.OperationID, seq: row.Seq, token: row.FencingToken}] = true
	}
	for i := range batch {
		if recorded[batch[i].key()] {
			w.reportRecorded(batch[i])
		} else {
			w.reportFenced(batch[i])
		}
	}
	w.cfg.Logger.Debug("idem: recorded effect outcomes in one statement", "outcomes", len(batch), "fenced", len(batch)-len(rows))
}

// storableText is s as PostgreSQL text can hold it: a provider's error
// may carry NUL bytes or invalid UTF-8, which would fail the statement
// and with it the record of every outcome in its batch.
func storableText(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
}
