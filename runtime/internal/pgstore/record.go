package pgstore

import (
	"time"
)

// State is the state of an idempotency record.
type State string

// The states of DESIGN.md section 4. StateInProgress is seen committed only
// after a checkpoint: otherwise the claim and the completion share one
// transaction.
const (
	StateInProgress       State = "in_progress"
	StateCompleted        State = "completed"
	StateFailed           State = "failed"
	StateRequiresRecovery State = "requires_recovery"
	StateTombstone        State = "tombstone"
)

// Claim is what a new operation writes when it claims (scope, key).
type Claim struct {
	Scope       string
	Key         string
	Fingerprint []byte
	OperationID [16]byte
	Operation   string // the operation's name
	// Retention is how long the stored response is kept, and Tombstone how
	// long the row is kept after it: the deadlines are computed from the
	// database's now(), never from a host's clock.
	Retention time.Duration
	Tombstone time.Duration
}

// Record is a committed record found holding a key.
type Record struct {
	OperationID [16]byte
	Fingerprint []byte
	State       State
	Status      int    // 0 when no response is stored
	Header      []byte // JSON object of header name to values; nil when none
	Body        []byte
	CompletedAt time.Time // zero until completed
	ExpiresAt   time.Time // end of retention; on a tombstone, its purge time
	// ReadAt is the database's clock when the record was read: compared
	// with ExpiresAt, it decides whether the record expired.
	ReadAt time.Time
}

// Expired reports whether r is past its retention (or a tombstone) when
// it was read, on the database's clock.
func (r *Record) Expired() bool {
	return r.State == StateTombstone || !r.ReadAt.Before(r.ExpiresAt)
}

// Completion is the final outcome stored with an operation.
type Completion struct {
	Scope       string
	Key         string
	OperationID [16]byte
	// Token is the fencing token the completing attempt holds the record
	// under: 0 for a record claimed in its own transaction.
	Token  int64
	State  State // StateCompleted or StateFailed
	Status int
	Header []byte // JSON object of header name to values
	Body   []byte
}
