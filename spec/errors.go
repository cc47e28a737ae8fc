package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Error is one reason a spec cannot be used, with the place it was found
// and the field path inside the contract:
//
//	orders.yaml:42:7: x-idempotency.concurrency: unknown value "wiat" (want wait or reject)
type Error struct {
	Pos Position
	// Path is the field path, such as x-idempotency.fingerprint.include[1];
	// empty when the error is about the file as a whole.
	Path string
	Msg  string
}

// Error formats the error as position, field path and message.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.File != "" {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxListed is how many errors ErrorList.Error prints before it summarises
// the rest.
const maxListed = 20

// ErrorList holds every error found in one load, sorted by position.
type ErrorList []*Error

// Error prints the errors one per line, in position order, at most
// maxListed of them followed by "… and N more".
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == maxListed {
			fmt.Fprintf(&b, "\n… and %d more", len(l)-maxListed)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// sortErrors orders errors by position, then path and message, so output
// is stable whatever order the decoder found them in.
func sortErrors(l ErrorList) {
	slices.SortStableFunc(l, func(a, b *Error) int {
		switch {
		case a.Pos.Before(b.Pos):
			return -1
		case b.Pos.Before(a.Pos):
			return 1
		}
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Msg, b.Msg)
	})
}

// errOrNil returns the sorted list as an error, or nil when it is empty, so
// callers never hold a non-nil error interface around an empty list.
func (l ErrorList) errOrNil() error {
	if len(l) == 0 {
		return nil
	}
	sortErrors(l)
	return l
}

// RuleUnusable is the rule id under which idemgen check reports, in its
// JSON and GitHub formats, a reason a spec is unusable: an unreadable
// file, invalid YAML or JSON, something that is not OpenAPI, an overlay
// that does not apply, or a contract that does not decode.
const RuleUnusable = "LOAD001"

// RuleOverlayWarning is the rule id under which Check reports an overlay
// problem that did not stop the load (Document.Warnings), such as an action
// whose target matches nothing under LoadOptions.Unmatched = UnmatchedWarn.
const RuleOverlayWarning = "LOAD002"

// UnusableDiagnostics returns the reasons in a Load error as error
// diagnostics under RuleUnusable, in the error's order. An error without a
// position of its own, which Load does not return but a caller may pass,
// is placed at file.
func UnusableDiagnostics(err error, file string) []Diagnostic {
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		list = ErrorList{{Pos: Position{File: file}, Msg: err.Error()}}
	}
	out := make([]Diagnostic, len(list))
	for i, e := range list {
		out[i] = Diagnostic{
			Pos:      e.Pos,
			Severity: SeverityError,
			Rule:     RuleUnusable,
			Path:     e.Path,
			Message:  e.Msg,
			Hint:     "the spec cannot be used until this is fixed; nothing else in it was checked",
		}
	}
	return out
}

// WarningDiagnostics returns doc's overlay warnings as warning diagnostics
// under RuleOverlayWarning.
func WarningDiagnostics(doc *Document) []Diagnostic {
	out := make([]Diagnostic, len(doc.Warnings))
	for i, w := range doc.Warnings {
		out[i] = Diagnostic{
			Pos:      w.Pos,
			Severity: SeverityWarning,
			Rule:     RuleOverlayWarning,
			Path:     w.Path,
			Message:  w.Msg,
			Hint:     "fix the action's target or remove the action",
		}
	}
	return out
}
