package idem

import (
	"fmt"
	"net/http"
	"time"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// Defaults applied by Contract.validate to zero fields.
const (
	DefaultKeyHeader   = "Idempotency-Key"
	DefaultKeyMaxLen   = 255
	DefaultRetention   = 72 * time.Hour
	DefaultTombstone   = 30 * 24 * time.Hour
	DefaultWaitTimeout = 5 * time.Second
)

// Contract is one operation's x-idempotency block in run-time form. The
// generator emits one per annotated operation; the zero value of a field
// means the default of DESIGN.md section 2.
type Contract struct {
	Operation   string // operationId, for logs and metrics
	Method      string // HTTP method, part of the fingerprint
	Route       string // route template such as /orders/{id}, part of the fingerprint
	PathParams  []string
	Key         KeySpec
	Fingerprint fingerprint.Spec
	Retention   time.Duration // full record and stored response kept this long
	Tombstone   time.Duration // then a compact record this long; a late retry is never re-run
	Concurrency Concurrency
	WaitTimeout time.Duration // how long a duplicate waits under ConcurrencyWait
	// StoreFailures lists the final failure statuses that are stored and
	// replayed; any other non-2xx/3xx status rolls back and frees the key.
	StoreFailures []StatusClass
	// ReplayHeaders are the response headers stored and replayed besides
	// Content-Type.
	ReplayHeaders []string
}

// KeySpec says where the idempotency key is found.
type KeySpec struct {
	Header      string // header name; DefaultKeyHeader when both are empty
	BodyPointer string // JSON pointer to a string member of the body, instead of a header
	Required    bool   // a missing key is a 400; otherwise the request runs without protection
	MaxLength   int    // longer keys are a 400; DefaultKeyMaxLen when 0
}

// Concurrency is the policy for a duplicate that arrives while the first
// request still runs.
type Concurrency int

const (
	// ConcurrencyWait blocks the duplicate up to WaitTimeout for the first
	// request's result and replays it; past the timeout it answers 409.
	ConcurrencyWait Concurrency = iota
	// ConcurrencyReject answers 409 with Retry-After at once.
	ConcurrencyReject
)

// StatusClass matches response statuses: a class such as 4 (4xx) when
// Status is 0, or one exact Status.
type StatusClass struct {
	Class  int
	Status int
}

// Class4xx matches every 4xx status, the default of store-failures.
var Class4xx = StatusClass{Class: 4}

// matches reports whether status falls in c.
func (c StatusClass) matches(status int) bool {
	if c.Status != 0 {
		return c.Status == status
	}
	return status/100 == c.Class
}

// normalized returns c with defaults filled in, or an error naming the
// first unusable field.
func (c Contract) normalized() (Contract, error) {
	if c.Operation == "" {
		return c, fmt.Errorf("idem: contract without an operation name")
	}
	if c.Method == "" || c.Route == "" {
		return c, fmt.Errorf("idem: contract %s: method and route are required", c.Operation)
	}
	if c.Key.Header == "" && c.Key.BodyPointer == "" {
		c.Key.Header = DefaultKeyHeader
	}
	if c.Key.Header != "" && c.Key.BodyPointer != "" {
		return c, fmt.Errorf("idem: contract %s: key in header and body pointer at once", c.Operation)
	}
	c.Key.Header = http.CanonicalHeaderKey(c.Key.Header)
	if c.Key.MaxLength == 0 {
		c.Key.MaxLength = DefaultKeyMaxLen
	}
	if c.Retention == 0 {
		c.Retention = DefaultRetention
	}
	if c.Tombstone == 0 {
		c.Tombstone = DefaultTombstone
	}
	if c.WaitTimeout == 0 {
		c.WaitTimeout = DefaultWaitTimeout
	}
	if c.Retention < 0 || c.Tombstone < 0 || c.WaitTimeout < 0 {
		return c, fmt.Errorf("idem: contract %s: negative duration", c.Operation)
	}
	if c.Concurrency != ConcurrencyWait && c.Concurrency != ConcurrencyReject {
		return c, fmt.Errorf("idem: contract %s: unknown concurrency %d", c.Operation, c.Concurrency)
	}
	if err := c.Fingerprint.Validate(); err != nil {
		return c, fmt.Errorf("idem: contract %s: %w", c.Operation, err)
	}
	return c, nil
}

// storesFailure reports whether a final status is stored as a failure.
func (c *Contract) storesFailure(status int) bool {
	for _, sc := range c.StoreFailures {
		if sc.matches(status) {
			return true
		}
	}
	return false
}

// lockTimeout is how long the claim waits for a concurrent holder.
func (c *Contract) lockTimeout() time.Duration {
	if c.Concurrency == ConcurrencyReject {
		return time.Millisecond
	}
	return c.WaitTimeout
}

// retryAfter is the Retry-After advice, in whole seconds, of a 409 for an
// operation still in progress: the wait-timeout under wait (the first
// request has already run that long), one second under reject.
func (c *Contract) retryAfter() time.Duration {
	if c.Concurrency == ConcurrencyReject {
		return time.Second
	}
	d := c.WaitTimeout.Round(time.Second)
	if d < time.Second {
		d = time.Second
	}
	return d
}
