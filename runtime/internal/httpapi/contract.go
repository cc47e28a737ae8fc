package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// Contract is one operation's x-idempotency block in run-time form. The
// generator emits one per annotated operation, every field written out.
// A zero field means exactly the value of runtime/defaults, the table the
// spec applies too, or is refused by NewTypedHandler and NewHandler; no
// zero field means anything else.
type Contract struct {
	Operation   string // operationId, for logs and metrics; required
	Method      string // HTTP method, part of the fingerprint; required
	Route       string // route template such as /orders/{id}, part of the fingerprint; required
	PathParams  []string
	Key         KeySpec
	Fingerprint fingerprint.Spec
	Retention   time.Duration // full record and stored response kept this long; 0 is defaults.Retention
	Tombstone   time.Duration // then a compact record this long, a late retry never re-run; 0 is defaults.Tombstone
	Concurrency Concurrency   // the zero value ConcurrencyWait is defaults.Concurrency
	WaitTimeout time.Duration // how long a duplicate waits under ConcurrencyWait; 0 is defaults.WaitTimeout
	// StoreFailures lists the final failure statuses that are stored and
	// replayed; any other non-2xx/3xx status rolls back and frees the key.
	// Empty means defaults.StoreFailures (every 4xx) unless
	// StoreNoFailures is set.
	StoreFailures []StatusClass
	// StoreNoFailures stores no failure at all: every non-2xx/3xx status
	// frees the key (store-failures: [] in the spec). StoreFailures must
	// then be empty.
	StoreNoFailures bool
	// ReplayHeaders are response headers stored and replayed besides
	// Content-Type and the typed headers of the response (Response.Typed).
	ReplayHeaders []string
	// MediaTypes are the request body's media types the operation takes,
	// as the spec writes them; a body in another answers 415. Empty takes
	// any.
	MediaTypes []string
	// ReplayCurrent answers a retry of a completed operation with the
	// current representation of what it created, from the handler's
	// Current hook, instead of the stored answer (replay: current); the
	// zero value replays the stored answer, defaults.Replay.
	ReplayCurrent bool
	// Lease is how long an attempt of a phased operation holds it between
	// recovery points before a retry or the completer may take it over;
	// required for phased operations (NewPhasedHandler), 0 otherwise.
	Lease time.Duration
}

// KeySpec says where the idempotency key is found.
type KeySpec struct {
	Header      string // header name; defaults.KeyHeader when both are empty
	BodyPointer string // JSON pointer to a string member of the body, instead of a header
	// Optional lets a request without a key run without protection; the
	// zero value, a missing key answering 400, is defaults.KeyRequired.
	Optional  bool
	MaxLength int // longer keys are a 400; 0 is defaults.KeyMaxLength
}

// Concurrency is the policy for a duplicate that arrives while the first
// request still runs: the core's, answered over HTTP.
type Concurrency = core.Concurrency

const (
	// ConcurrencyWait blocks the duplicate up to WaitTimeout for the first
	// request's result and replays it; past the timeout it answers 409.
	ConcurrencyWait = core.ConcurrencyWait
	// ConcurrencyReject answers 409 with Retry-After at once.
	ConcurrencyReject = core.ConcurrencyReject
)

// StatusClass matches response statuses: a class such as 4 (4xx) when
// Status is 0, or one exact Status.
type StatusClass struct {
	Class  int
	Status int
}

// matches reports whether status falls in c.
func (c StatusClass) matches(status int) bool {
	if c.Status != 0 {
		return c.Status == status
	}
	return status/100 == c.Class
}

// defaultStoreFailures is defaults.StoreFailures in run-time form.
var defaultStoreFailures = func() []StatusClass {
	var out []StatusClass
	for _, s := range defaults.StoreFailures() {
		var class int
		if _, err := fmt.Sscanf(s, "%dxx", &class); err != nil {
			panic("engine: unreadable default store-failure " + s)
		}
		out = append(out, StatusClass{Class: class})
	}
	return out
}()

// Normalize returns c with every zero field replaced by its default, or an
// error naming the first unusable field. The result is what the executor
// runs; runtime/idemtest computes its scenarios from it.
func Normalize(c Contract) (Contract, error) {
	if c.Operation == "" {
		return c, errors.New("idem: contract without an operation name")
	}
	if c.Method == "" || c.Route == "" {
		return c, fmt.Errorf("idem: contract %s: method and route are required", c.Operation)
	}
	if c.Key.Header == "" && c.Key.BodyPointer == "" {
		c.Key.Header = defaults.KeyHeader
	}
	if c.Key.Header != "" && c.Key.BodyPointer != "" {
		return c, fmt.Errorf("idem: contract %s: key in header and body pointer at once", c.Operation)
	}
	if c.Key.BodyPointer != "" {
		if err := jsonpointer.Check(c.Key.BodyPointer); err != nil {
			return c, fmt.Errorf("idem: contract %s: key pointer: %w", c.Operation, err)
		}
	}
	c.Key.Header = http.CanonicalHeaderKey(c.Key.Header)
	switch {
	case c.Key.MaxLength < 0:
		return c, fmt.Errorf("idem: contract %s: negative key max-length", c.Operation)
	case c.Key.MaxLength == 0:
		c.Key.MaxLength = defaults.KeyMaxLength
	}
	if c.Retention < 0 || c.Tombstone < 0 || c.WaitTimeout < 0 {
		return c, fmt.Errorf("idem: contract %s: negative duration", c.Operation)
	}
	if c.Retention == 0 {
		c.Retention = defaults.Retention
	}
	if c.Tombstone == 0 {
		c.Tombstone = defaults.Tombstone
	}
	if c.WaitTimeout == 0 {
		c.WaitTimeout = defaults.WaitTimeout
	}
	switch {
	case c.StoreNoFailures && len(c.StoreFailures) > 0:
		return c, fmt.Errorf("idem: contract %s: StoreNoFailures with store-failures listed", c.Operation)
	case c.StoreNoFailures:
		c.StoreFailures = nil
	case len(c.StoreFailures) == 0:
		c.StoreFailures = defaultStoreFailures
	}
	for _, sc := range c.StoreFailures {
		if (sc.Status == 0) == (sc.Class == 0) {
			return c, fmt.Errorf("idem: contract %s: a store-failure needs a class or a status, not both", c.Operation)
		}
	}
	if err := c.Fingerprint.Validate(); err != nil {
		return c, fmt.Errorf("idem: contract %s: %w", c.Operation, err)
	}
	if err := c.policy().Validate(); err != nil {
		return c, err
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

// policy is the core's part of a normalised contract.
func (c *Contract) policy() *core.Policy {
	return &core.Policy{
		Operation: c.Operation, Retention: c.Retention, Tombstone: c.Tombstone,
		Concurrency: core.Concurrency(c.Concurrency), WaitTimeout: c.WaitTimeout,
		StoresFailures: len(c.StoreFailures) > 0, Lease: c.Lease,
	}
}
