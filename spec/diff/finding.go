package diff

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// Level ranks a contract change by what it does to retries in flight.
type Level int

// The levels, least severe first.
const (
	// Safe changes leave every retry in flight with the answer it would
	// have had.
	Safe Level = iota
	// Risky changes give some retries a different answer, but never run a
	// business operation or an effect twice.
	Risky
	// Breaking changes can run an operation or an effect a second time,
	// refuse retries that would have been replayed, or lose their result.
	Breaking
)

// Levels lists the levels, most severe first, as reports group them.
var Levels = []Level{Breaking, Risky, Safe}

// String returns the lower-case name used in output and in --fail-on.
func (l Level) String() string {
	switch l {
	case Breaking:
		return "breaking"
	case Risky:
		return "risky"
	default:
		return "safe"
	}
}

// ParseLevel returns the level with the name: breaking, risky or safe, or
// oasdiff's spelling of the same levels, ERR, WARN and INFO, in any case.
func ParseLevel(name string) (Level, error) {
	switch strings.ToLower(name) {
	case "breaking", "err":
		return Breaking, nil
	case "risky", "warn":
		return Risky, nil
	case "safe", "info":
		return Safe, nil
	}
	return 0, fmt.Errorf("unknown level %q (want breaking, risky or safe; or ERR, WARN or INFO)", name)
}

// Operation names an operation the way a reviewer finds it in the spec.
type Operation struct {
	Method string
	// Path is the path template; for a webhook, its name.
	Path    string
	Webhook bool
	// ID is the operationId; empty when the spec gives none.
	ID string
}

// String formats the operation as METHOD /path, or "webhook name (METHOD)".
func (o Operation) String() string {
	if o.Webhook {
		return fmt.Sprintf("webhook %s (%s)", o.Path, o.Method)
	}
	return o.Method + " " + o.Path
}

// Finding is one classified contract change.
type Finding struct {
	// Rule is the change kind, a kebab-case id such as
	// fingerprint-field-added (docs/diff.md).
	Rule  string
	Level Level
	// Operation is the operation as the head spec has it, or as the base
	// had it when the head has it no more.
	Operation Operation
	// Field is the contract field that changed, such as
	// x-idempotency.fingerprint.include[/delivery]; empty when the change
	// is about the operation as a whole.
	Field string
	// Change says what changed, with the old and new values.
	Change string
	// InFlight says in plain words what happens to a retry already in
	// flight when the head contract is deployed.
	InFlight string
	// Base and Head are where the value is in each spec; zero when that
	// side does not have it.
	Base, Head spec.Position
	// Fingerprint identifies the finding across runs, whatever lines
	// moved: a hash of the rule, the operation and the field.
	Fingerprint string
}

// At returns the position a finding is shown at: the head's, or the base's
// when the head has nothing there, such as for a removal.
func (f Finding) At() spec.Position {
	if f.Head.File != "" {
		return f.Head
	}
	return f.Base
}

// fingerprint hashes what identifies a finding: rule, operation and field.
func fingerprint(rule string, op Operation, field string) string {
	sum := sha256.Sum256([]byte(rule + "\x00" + op.String() + "\x00" + field))
	return hex.EncodeToString(sum[:8])
}

// sortFindings orders findings by operation (path, then method), then
// field, then rule, so output is stable whatever order they were found in.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(boolInt(a.Operation.Webhook), boolInt(b.Operation.Webhook)),
			cmp.Compare(a.Operation.Path, b.Operation.Path),
			cmp.Compare(a.Operation.Method, b.Operation.Method),
			cmp.Compare(a.Field, b.Field),
			cmp.Compare(a.Rule, b.Rule),
		)
	})
}

// boolInt orders false before true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Counts returns the number of findings per level.
func Counts(fs []Finding) map[Level]int {
	n := map[Level]int{Breaking: 0, Risky: 0, Safe: 0}
	for _, f := range fs {
		n[f.Level]++
	}
	return n
}

// Reaches reports whether any finding is at least at the level.
func Reaches(fs []Finding, threshold Level) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Level >= threshold })
}
