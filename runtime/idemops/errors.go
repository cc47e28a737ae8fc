package idemops

import "errors"

// The errors a caller tells apart with errors.Is: every error of this
// package that is not the database's wraps one of them.
var (
	// ErrNotFound: no operation or effect has that id, key or effect key
	// (within the scope asked, for Find).
	ErrNotFound = errors.New("idemops: not found")
	// ErrWrongState: the effect or operation is not in a state the action
	// moves it out of (only an effect in requires_recovery or dead, and an
	// operation in requires_recovery, wait for a person).
	ErrWrongState = errors.New("idemops: wrong state for the action")
	// ErrInvalid: an argument is unusable: a malformed key, operation id
	// or effect key, an unknown state, a negative limit, an action without
	// an actor or a reason or with control characters in them, a
	// resolution whose answer a retry could not be given.
	ErrInvalid = errors.New("idemops: invalid argument")
)

// opsError is an error of this package: its own message, the sentinel it
// is, and what caused it, if anything.
type opsError struct {
	kind  error
	msg   string
	cause error
}

func (e *opsError) Error() string { return "idemops: " + e.msg }

func (e *opsError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// invalid is an ErrInvalid with msg.
func invalid(msg string, cause error) error {
	return &opsError{kind: ErrInvalid, msg: msg, cause: cause}
}
