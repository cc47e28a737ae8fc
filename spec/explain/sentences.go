package explain

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/jsonpointer"
	"github.com/idemgen/idemgen/spec"
)

// keyPhrase names the key a retry repeats: "`Idempotency-Key` header" or
// "`event_id` body field".
func keyPhrase(c *spec.Contract) string {
	if c.Key.In.Value == spec.KeyInBody {
		return fmt.Sprintf("`%s` body field", field(c.Key.Name.Value))
	}
	return fmt.Sprintf("`%s` header", c.Key.Name.Value)
}

func retrySentence(c *spec.Contract) string {
	s := fmt.Sprintf("A request is a retry of an earlier one when it carries the same %s.", keyPhrase(c))
	if c.Key.Required.Value {
		s += " The key is required: a request without it gets 400."
	} else {
		s += " The key is optional: a request without it runs unprotected, every time it is sent."
	}
	return s + fmt.Sprintf(" A key longer than %d characters, or empty, gets 400.", c.Key.MaxLength.Value)
}

func scopeSentence(c *spec.Contract) string {
	scope := c.Scope.Value
	if len(scope) == 0 {
		return "Keys are global: the same key sent by any client matches the same operation."
	}
	return fmt.Sprintf("Keys are per %s; a key sent under another %s never matches, and its operation is invisible.",
		join(code(scope), "and"), join(scope, "or"))
}

// fields says which request content makes two requests the same operation.
type fields struct {
	// included lists the significant content, such as "`a`, `b` (in any
	// order) and `c`"; empty when the whole body is significant.
	included string
	// excluded lists the left-out fields, such as "`a` and `b`".
	excluded string
	// unordered lists unordered arrays that are not themselves included.
	unordered string
	// params are the path parameters, which are always significant.
	params []string
	// noBody reports whether the operation has no request body.
	noBody bool
	// naturalKey reports whether the contract names the entity's natural
	// key.
	naturalKey bool
}

// significant describes the fingerprint of the operation.
func significant(op *spec.Operation) fields {
	fp := op.Contract.Fingerprint
	f := fields{params: pathParams(op), naturalKey: len(op.Contract.NaturalKey) > 0}
	f.noBody = op.Op == nil || op.Op.RequestBody == nil
	included := map[string]bool{}
	for _, inc := range fp.Include {
		included[inc.Value] = true
	}
	unordered := map[string]bool{}
	var rest []string
	for _, u := range fp.Unordered {
		unordered[u.Value] = true
		if !included[u.Value] {
			rest = append(rest, field(u.Value))
		}
	}
	var parts []string
	for _, inc := range fp.Include {
		p := fmt.Sprintf("`%s`", field(inc.Value))
		if unordered[inc.Value] {
			p += " (in any order)"
		}
		parts = append(parts, p)
	}
	f.included = join(parts, "and")
	var ex []string
	for _, e := range fp.Exclude {
		ex = append(ex, field(e.Value))
	}
	f.excluded = join(code(ex), "and")
	f.unordered = join(code(rest), "and")
	return f
}

// body names the significant body content: "`a` and `b`", or "the whole
// request body".
func (f fields) body() string {
	if f.included == "" {
		return "the whole request body"
	}
	return f.included
}

// paramsPhrase names the path parameters: "the path parameter `id`" or
// "the path parameters `a` and `b`".
func (f fields) paramsPhrase() string {
	if len(f.params) == 1 {
		return "the path parameter " + join(code(f.params), "and")
	}
	return "the path parameters " + join(code(f.params), "and")
}

// sentence explains the fingerprint on its own.
func (f fields) sentence() string {
	var s string
	switch {
	case f.noBody && len(f.params) == 0:
		s = "The operation takes no request body, so the key alone identifies it."
	case f.noBody:
		s = fmt.Sprintf("The operation takes no request body; %s and the key identify it.", f.paramsPhrase())
	default:
		s = "Two requests are the same operation when they agree on " + f.body()
		if f.excluded != "" {
			s += ", leaving out " + f.excluded
		}
		if f.unordered != "" {
			s += ", with " + f.unordered + " compared in any order"
		}
		if len(f.params) > 0 {
			s += ", and on " + f.paramsPhrase()
		}
		s += ". The same key with different significant content gets 422, and nothing of the first request is disclosed."
	}
	switch {
	case f.naturalKey:
		return s + " The same content under a new key is a new request, which the natural key below keeps from creating a second entity."
	case len(f.params) > 0:
		return s + " The same content under a new key is a new operation on the same resource."
	}
	return s + " The same content under a new key is a new operation."
}

// content is the part of the replay sentence that names what a retry
// repeats besides the key.
func (f fields) content() string {
	var parts []string
	if len(f.params) > 0 {
		parts = append(parts, "the same "+join(code(f.params), "and")+" in the path")
	}
	switch {
	case f.noBody:
	case f.included == "" && f.excluded != "":
		parts = append(parts, "the same body apart from "+f.excluded)
	case f.included == "":
		parts = append(parts, "the same body")
	default:
		parts = append(parts, "the same "+f.included)
	}
	if len(parts) == 0 {
		return ""
	}
	return " and " + strings.Join(parts, " and ")
}

func replaySentence(op *spec.Operation, f fields) string {
	c := op.Contract
	if c.Replay.Value == spec.ReplayCurrent {
		return fmt.Sprintf("A retry within %s with the same %s%s returns the current representation of the created resource (`replay: current`), as the service's generated `Current` method reads it now, with `Idempotent-Replayed: true`; when the resource is gone it answers 410 `resource-gone` with the operation id. It does not run the operation again. The first response stays stored with the record, unchanged, for support (`idemgen ops show`).",
			human(c.Retention.Value), keyPhrase(c), f.content())
	}
	return fmt.Sprintf("A retry within %s with the same %s%s returns the first response, byte for byte, with `Idempotent-Replayed: true`. It does not run the operation again.",
		human(c.Retention.Value), keyPhrase(c), f.content())
}

func expirySentence(c *spec.Contract) string {
	guard := ""
	if len(c.NaturalKey) > 0 {
		guard = ", though the natural key still refuses a second entity"
	}
	return fmt.Sprintf("After %s the stored response is discarded, but a retry is still refused for %s with 409 `operation-expired`; after that the key is forgotten: a request with it runs as a new operation%s.",
		human(c.Retention.Value), human(c.Tombstone.Value), guard)
}

func concurrencySentence(c *spec.Contract) string {
	if c.Concurrency.Value == spec.ConcurrencyReject {
		return "A duplicate that arrives while the first attempt still runs gets 409 with `Retry-After` at once."
	}
	return fmt.Sprintf("A duplicate that arrives while the first attempt still runs waits up to %s for its result and then returns it; if the first attempt is still running after %s, the duplicate gets 409 with `Retry-After`.",
		human(c.WaitTimeout.Value), human(c.WaitTimeout.Value))
}

func failuresSentence(c *spec.Contract) string {
	codes := c.StoreFailures.Value
	if len(codes) == 0 {
		return "Only successful responses are stored. A failed attempt frees the key, so its retry runs the operation again."
	}
	var stored string
	if slices.Contains(codes, "4xx") {
		stored = "Final client errors (4xx)"
	} else {
		stored = "Responses with status " + join(codes, "or")
	}
	return stored + " are stored and replayed like a success. Any other failure frees the key, so its retry runs the operation again."
}

// atomicSentence explains atomic mode; phasedItems explain phased mode.
const atomicSentence = "Atomic: claiming the key, the business change, the stored response and the queued effects commit in one transaction. A crash before the commit leaves nothing behind, and a retry runs the operation afresh."

func naturalKeySentence(c *spec.Contract) string {
	var names []string
	for _, n := range c.NaturalKey {
		names = append(names, field(n.Value))
	}
	return fmt.Sprintf("The created entity is unique on %s within the scope: a second request with the same values cannot create a second one, even under a new key.",
		join(code(names), "and"))
}

func effectSentence(e spec.Effect) string {
	var what string
	switch e.OnUnknown.Value {
	case spec.OnUnknownHalt:
		what = "when its outcome is unknown (a time-out, or a worker that died mid-call), the worker stops it in `requires_recovery` for a person to settle with `idemgen ops resolve` or `idemgen ops retry`; the operation's result and its replay stand."
	case spec.OnUnknownVerify:
		what = "when its outcome is unknown (a time-out, or a worker that died mid-call), the worker asks the provider's `Verify` first: done ends it, not done calls it again with the same effect key, and unknown asks again after a backoff, within the attempt limit."
	default:
		what = "when its outcome is unknown (a time-out, or a worker that died mid-call), it is called again with the same effect key after a backoff, within the attempt limit, so the provider must treat a repeated key as a no-op."
	}
	name := "`" + e.Name.Value + "`"
	if e.Payload.Set {
		name += " (payload `" + e.Payload.Value + "`)"
	}
	return fmt.Sprintf("%s: %s", name, what)
}

// pathParams lists the operation's path parameters in the order the path
// template names them.
func pathParams(op *spec.Operation) []string {
	var out []string
	rest := op.Path
	if op.Webhook {
		return nil
	}
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, rest[i+1:i+j])
		rest = rest[i+j+1:]
	}
}

// field shows a JSON pointer as a field reference: its tokens, unescaped,
// joined by slashes (/items/*/sku becomes items/*/sku).
func field(pointer string) string {
	return strings.Join(jsonpointer.Split(pointer), "/")
}

// code wraps each string in backquotes.
func code(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}

// join lists items in prose: "a", "a and b", "a, b and c".
func join(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// human writes a duration for prose: a week or more of whole days as
// "30 days", else as the contract would write it (72h, 5s).
func human(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= 7*day && d%day == 0 {
		return fmt.Sprintf("%d days", d/day)
	}
	return spec.FormatDuration(d)
}
