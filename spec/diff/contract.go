package diff

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemgen/idemgen/spec"
)

// contracts compares the merged contracts of one operation in base (b)
// and head (h) and collects the findings.
type contracts struct {
	op   Operation
	b, h *spec.Contract
	out  []Finding
}

// add records a finding on field x-idempotency.<field>.
func (c *contracts) add(rule, field, change, inFlight string, base, head spec.Position) {
	c.out = add(c.out, rule, c.op, "x-idempotency."+field, change, inFlight, base, head)
}

// key compares how a retry's key is read.
func (c *contracts) key() {
	b, h := c.b.Key, c.h.Key
	lost := fmt.Sprintf("A retry that carries its key in %s, as its first request did, is no longer recognised: it gets 400 when the key is required, and runs the operation a second time when it is not.", describeKey(b))
	if c.b.Consumer != nil && c.b.Consumer.Broker != nil {
		lost = fmt.Sprintf("A redelivery of a message processed under its key in %s is no longer recognised: its handler runs a second time.", describeKey(b))
	}
	switch {
	case b.In.Value != h.In.Value:
		c.add("key-location-changed", "key.in",
			fmt.Sprintf("key.in %s → %s", describeKey(b), describeKey(h)), lost, b.In.Pos, h.In.Pos)
	case !sameKeyName(b, h):
		c.add("key-name-changed", "key.name",
			fmt.Sprintf("key.name %s → %s", b.Name.Value, h.Name.Value), lost, b.Name.Pos, h.Name.Pos)
	}
	switch br, hr := b.Required.Value, h.Required.Value; {
	case br && !hr:
		c.add("key-made-optional", "key.required", "key.required true → false",
			"A retry in flight still carries its key and is recognised, but a client may now leave the key out: its retry runs the operation a second time.",
			b.Required.Pos, h.Required.Pos)
	case !br && hr:
		c.add("key-made-required", "key.required", "key.required false → true",
			"A retry sent without a key, accepted before, now gets 400; nothing runs twice.",
			b.Required.Pos, h.Required.Pos)
	}
	switch bl, hl := b.MaxLength.Value, h.MaxLength.Value; {
	case hl < bl:
		c.add("key-max-length-lowered", "key.max-length", fmt.Sprintf("key.max-length %d → %d", bl, hl),
			fmt.Sprintf("A retry whose key is longer than %d characters, accepted with its first request, now gets 400 and never reaches its stored response.", hl),
			b.MaxLength.Pos, h.MaxLength.Pos)
	case hl > bl:
		c.add("key-max-length-raised", "key.max-length", fmt.Sprintf("key.max-length %d → %d", bl, hl),
			"Every key accepted before is still accepted: retries in flight are answered as before.",
			b.MaxLength.Pos, h.MaxLength.Pos)
	}
}

// describeKey words where a key is read: "header Idempotency-Key",
// "body field /idempotency_key" or a broker's "message id".
func describeKey(k spec.Key) string {
	switch k.In.Value {
	case spec.KeyInBody:
		return "body field " + k.Name.Value
	case spec.KeyInMessageID:
		return "the broker's message id"
	}
	return "header " + k.Name.Value
}

// sameKeyName reports whether two keys read the same place: header names
// compare without case, as HTTP does.
func sameKeyName(b, h spec.Key) bool {
	if b.In.Value == spec.KeyInHeader {
		return strings.EqualFold(b.Name.Value, h.Name.Value)
	}
	return b.Name.Value == h.Name.Value
}

// scope compares the scope a key lives in. Order counts: the scope value
// is built from the attributes in order.
func (c *contracts) scope() {
	b, h := c.b.Scope, c.h.Scope
	if slices.Equal(b.Value, h.Value) {
		return
	}
	c.add("scope-changed", "scope", fmt.Sprintf("scope %s → %s", list(b.Value), list(h.Value)),
		fmt.Sprintf("Records are kept per scope: a retry of a request sent before the change is looked up under %s, finds no record and runs the operation a second time.", list(h.Value)),
		b.Pos, h.Pos)
}

// naturalKey compares the fields an entity is unique on. Order counts:
// the claim is built from the fields' values in order.
func (c *contracts) naturalKey() {
	b, h := values(c.b.NaturalKey), values(c.h.NaturalKey)
	if slices.Equal(b, h) {
		return
	}
	bp, hp := listPos(c.b.NaturalKey, c.b.Pos), listPos(c.h.NaturalKey, c.h.Pos)
	change := fmt.Sprintf("natural-key %s → %s", list(b), list(h))
	switch {
	case len(b) == 0:
		c.add("natural-key-added", "natural-key", change,
			fmt.Sprintf("Retries are still recognised by their key; a request with a new key for an entity that exists on %s is now refused, except for entities created before the change, which hold no claim.", list(h)),
			bp, hp)
	case len(h) == 0:
		c.add("natural-key-removed", "natural-key", change,
			"A retry that lost its key and is sent with a new one now creates a second entity instead of being refused.",
			bp, hp)
	default:
		c.add("natural-key-changed", "natural-key", change,
			fmt.Sprintf("Claims made on %s do not protect an entity on %s: a request with a new key for an entity created before the change creates a duplicate.", list(b), list(h)),
			bp, hp)
	}
}

// fingerprint compares the request content that makes two requests the
// same operation. Any change changes the fingerprint of a request sent
// before it.
func (c *contracts) fingerprint() {
	b, h := c.b.Fingerprint, c.h.Fingerprint
	retention := spec.FormatDuration(c.b.Retention.Value)
	stale := fmt.Sprintf("A retry of a request sent before the change gets 422 instead of its stored response for as long as the record is kept (%s)", retention)
	bi, hi := values(b.Include), values(h.Include)
	switch {
	case len(bi) == 0 && len(hi) > 0:
		c.add("fingerprint-whole-body-to-fields", "fingerprint.include",
			"fingerprint whole body → "+list(hi),
			stale+"; afterwards two requests with one key that differ outside "+list(hi)+" are one operation: the second is replayed.",
			c.b.Pos, listPos(h.Include, c.h.Pos))
	case len(bi) > 0 && len(hi) == 0:
		c.add("fingerprint-fields-to-whole-body", "fingerprint.include",
			"fingerprint "+list(bi)+" → whole body",
			stale+"; afterwards a retry whose body differs anywhere, even in a field not significant before, gets 422.",
			listPos(b.Include, c.b.Pos), c.h.Pos)
	case len(bi) > 0:
		c.pointers("fingerprint.include", b.Include, h.Include,
			"fingerprint-field-added", "fingerprint.include adds %s", stale+", since %s was not part of its fingerprint.",
			"fingerprint-field-removed", "fingerprint.include drops %s", stale+"; afterwards two requests with one key that differ only in %s are one operation: the second is replayed.")
	}
	c.pointers("fingerprint.exclude", b.Exclude, h.Exclude,
		"fingerprint-exclude-added", "fingerprint.exclude adds %s", stale+" when its body has %s; afterwards requests with one key that differ only there are one operation: the second is replayed.",
		"fingerprint-exclude-removed", "fingerprint.exclude drops %s", stale+" when its body has %s, which is significant now.")
	c.pointers("fingerprint.unordered", b.Unordered, h.Unordered,
		"fingerprint-unordered-added", "fingerprint.unordered adds %s", stale+" when its array %s holds more than one element; afterwards the order of that array no longer makes requests different.",
		"fingerprint-unordered-removed", "fingerprint.unordered drops %s", stale+" when its array %s holds more than one element; afterwards a retry with the elements in another order gets 422.")
}

// pointers reports each pointer added to or removed from one pointer list,
// with the change and in-flight formats taking the pointer.
func (c *contracts) pointers(field string, b, h []spec.Field[string], addedRule, addedChange, addedInFlight, removedRule, removedChange, removedInFlight string) {
	bv, hv := values(b), values(h)
	for _, p := range h {
		if !slices.Contains(bv, p.Value) {
			c.add(addedRule, field+"["+p.Value+"]", fmt.Sprintf(addedChange, p.Value),
				fmt.Sprintf(addedInFlight, p.Value), listPos(b, c.b.Pos), p.Pos)
		}
	}
	for _, p := range b {
		if !slices.Contains(hv, p.Value) {
			c.add(removedRule, field+"["+p.Value+"]", fmt.Sprintf(removedChange, p.Value),
				fmt.Sprintf(removedInFlight, p.Value), p.Pos, listPos(h, c.h.Pos))
		}
	}
}

// timing compares how long records are kept and waited for.
func (c *contracts) timing() {
	b, h := c.b, c.h
	c.duration("retention", b.Retention, h.Retention,
		"retention-shortened", "Records already stored keep the retention they were claimed with; a request sent after the change is replayed for %[2]s instead of %[1]s: a retry later than that gets 409 operation-expired instead of its stored response.",
		"retention-lengthened", "Records already stored keep the retention they were claimed with; a request sent after the change is replayed for %[2]s instead of %[1]s.")
	c.duration("tombstone", b.Tombstone, h.Tombstone,
		"tombstone-shortened", "Records already stored keep their tombstone period; a request sent after the change is forgotten %[2]s after its retention instead of %[1]s: a retry later than that runs the operation a second time.",
		"tombstone-lengthened", "Records already stored keep their tombstone period; a request sent after the change is remembered %[2]s after its retention instead of %[1]s, and a late retry is refused for longer.")
	switch bc, hc := b.Concurrency.Value, h.Concurrency.Value; {
	case bc == spec.ConcurrencyWait && hc == spec.ConcurrencyReject:
		c.add("concurrency-wait-to-reject", "concurrency", "concurrency wait → reject",
			fmt.Sprintf("A retry that arrives while its first attempt still runs gets 409 with Retry-After at once instead of waiting up to %s for the result; nothing runs twice.", spec.FormatDuration(b.WaitTimeout.Value)),
			b.Concurrency.Pos, h.Concurrency.Pos)
	case bc == spec.ConcurrencyReject && hc == spec.ConcurrencyWait:
		c.add("concurrency-reject-to-wait", "concurrency", "concurrency reject → wait",
			fmt.Sprintf("A retry that arrives while its first attempt still runs waits up to %s for the result instead of getting 409 at once.", spec.FormatDuration(h.WaitTimeout.Value)),
			b.Concurrency.Pos, h.Concurrency.Pos)
	case bc == spec.ConcurrencyWait:
		c.duration("wait-timeout", b.WaitTimeout, h.WaitTimeout,
			"wait-timeout-shortened", "A retry that arrives while its first attempt still runs waits %[2]s instead of %[1]s for the result, then gets 409 with Retry-After; nothing runs twice.",
			"wait-timeout-lengthened", "A retry that arrives while its first attempt still runs waits up to %[2]s instead of %[1]s for the result.")
	}
	if b.Mode.Value == spec.ModePhased && h.Mode.Value == spec.ModePhased {
		c.duration("lease", b.Lease, h.Lease,
			"lease-shortened", "An attempt still running after %[2]s instead of %[1]s loses its lease: a retry may take over and resume from the last recovery point while it runs (its fencing token keeps the first attempt from committing)."+strings.ReplaceAll(leaseBelowTimeout(h), "%", "%%"),
			"lease-lengthened", "A retry after a crashed attempt waits up to %[2]s instead of %[1]s before it resumes; nothing runs twice.")
	}
}

// duration reports a shortened or lengthened duration; the in-flight
// formats take the old and the new value.
func (c *contracts) duration(field string, b, h spec.Field[time.Duration], shorter, shorterInFlight, longer, longerInFlight string) {
	bs, hs := spec.FormatDuration(b.Value), spec.FormatDuration(h.Value)
	change := fmt.Sprintf("%s %s → %s", field, bs, hs)
	switch {
	case h.Value < b.Value:
		c.add(shorter, field, change, fmt.Sprintf(shorterInFlight, bs, hs), b.Pos, h.Pos)
	case h.Value > b.Value:
		c.add(longer, field, change, fmt.Sprintf(longerInFlight, bs, hs), b.Pos, h.Pos)
	}
}

// behaviour compares what a retry is answered with and how the operation
// runs.
func (c *contracts) behaviour() {
	b, h := c.b, c.h
	if b.Replay.Value != h.Replay.Value {
		inFlight := "A retry of a completed request now gets the first response, byte for byte, instead of the resource's current state."
		if h.Replay.Value == spec.ReplayCurrent {
			inFlight = "A retry of a completed request now gets the resource's current state instead of its first response, byte for byte."
		}
		c.add("replay-changed", "replay", fmt.Sprintf("replay %s → %s", b.Replay.Value, h.Replay.Value), inFlight, b.Replay.Pos, h.Replay.Pos)
	}
	bf, hf := b.StoreFailures.Value, h.StoreFailures.Value
	for _, s := range hf {
		if !storesFailure(bf, s) {
			c.add("store-failures-added", "store-failures["+s+"]", "store-failures adds "+s,
				fmt.Sprintf("A request refused with %s after the change is stored: its retries get the same refusal replayed instead of running again.", statusWords(s)),
				b.StoreFailures.Pos, h.StoreFailures.Pos)
		}
	}
	for _, s := range bf {
		if !storesFailure(hf, s) {
			c.add("store-failures-removed", "store-failures["+s+"]", "store-failures drops "+s,
				fmt.Sprintf("Refusals with %s stored before the change are still replayed; one after it frees the key, so its retry runs the operation again.", statusWords(s)),
				b.StoreFailures.Pos, h.StoreFailures.Pos)
		}
	}
	switch bm, hm := b.Mode.Value, h.Mode.Value; {
	case bm == spec.ModeAtomic && hm == spec.ModePhased:
		c.add("mode-changed-to-phased", "mode", "mode atomic → phased",
			"A retry of a request completed before the change is replayed as before; a new request's claim now commits before the business steps, so its retries can see it in progress and wait or get 409.",
			b.Mode.Pos, h.Mode.Pos)
	case bm == spec.ModePhased && hm == spec.ModeAtomic:
		c.add("mode-changed-to-atomic", "mode", "mode phased → atomic",
			"A retry of a phased attempt interrupted before the change cannot resume from its recovery points: it stays in progress or requires recovery, and steps that already ran are not known to the atomic handler.",
			b.Mode.Pos, h.Mode.Pos)
	}
}

// storesFailure reports whether the store-failures list stores status s:
// "4xx" stores every client error.
func storesFailure(list []string, s string) bool {
	return slices.Contains(list, s) || s != "4xx" && slices.Contains(list, "4xx")
}

// statusWords words a store-failures entry: "409", or "any 4xx status".
func statusWords(s string) string {
	if s == "4xx" {
		return "any 4xx status"
	}
	return s
}

// effects compares the side effects by name.
func (c *contracts) effects() {
	bEffects, hEffects := effectsByName(c.b.Effects), effectsByName(c.h.Effects)
	for _, he := range c.h.Effects {
		name := he.Name.Value
		field := "effects[" + name + "]"
		be, ok := bEffects[name]
		if !ok {
			c.add("effect-added", field, "effect "+name+" added",
				fmt.Sprintf("A retry of a request completed before the change is replayed and does not enqueue %s: operations already done never get it.", name),
				effectsPos(c.b), he.Pos)
			continue
		}
		if bp, hp := be.Payload.Value, he.Payload.Value; bp != hp {
			c.add("effect-payload-changed", field+".payload", fmt.Sprintf("effect %s payload %s → %s", name, payloadWords(bp), payloadWords(hp)),
				fmt.Sprintf("%s rows enqueued before the change hold the old payload; the provider generated after it decodes them as the new one, and a row that does not decode fails for good instead of running.", name),
				fieldOr(be.Payload.Pos, be.Pos), fieldOr(he.Payload.Pos, he.Pos))
		}
		bu, hu := be.OnUnknown.Value, he.OnUnknown.Value
		change := fmt.Sprintf("effect %s on-unknown %s → %s", name, bu, hu)
		field += ".on-unknown"
		switch {
		case bu == hu:
		case hu == spec.OnUnknownRetry:
			c.add("effect-on-unknown-loosened", field, change,
				fmt.Sprintf("Effects enqueued before the change keep %s; a %s enqueued after it whose outcome is unknown is repeated without asking anyone: if the first try went through, it happens twice.", bu, name),
				be.OnUnknown.Pos, he.OnUnknown.Pos)
		case bu == spec.OnUnknownHalt && hu == spec.OnUnknownVerify:
			c.add("effect-on-unknown-halt-to-verify", field, change,
				fmt.Sprintf("Effects enqueued before the change keep halt; a %s enqueued after it whose outcome is unknown is repeated when the provider's Verify says it did not happen, instead of waiting for a person.", name),
				be.OnUnknown.Pos, he.OnUnknown.Pos)
		default:
			c.add("effect-on-unknown-tightened", field, change,
				fmt.Sprintf("Effects enqueued before the change keep %s; a %s enqueued after it whose outcome is unknown is %s instead.", bu, name, onUnknownWords(hu)),
				be.OnUnknown.Pos, he.OnUnknown.Pos)
		}
	}
	for _, be := range c.b.Effects {
		name := be.Name.Value
		if _, ok := hEffects[name]; !ok {
			c.add("effect-removed", "effects["+name+"]", "effect "+name+" removed",
				fmt.Sprintf("%s rows enqueued before the change have no handler left and stay pending; a retry is replayed without it.", name),
				be.Pos, effectsPos(c.h))
		}
	}
}

// payloadWords names an effect's payload in a change: its schema
// reference, or bytes without one.
func payloadWords(ref string) string {
	if ref == "" {
		return "bytes"
	}
	return ref
}

// fieldOr is a field's position, or its object's when it was not written.
func fieldOr(p, object spec.Position) spec.Position {
	if p.Line == 0 {
		return object
	}
	return p
}

// onUnknownWords says what a policy does with an unknown outcome.
func onUnknownWords(p spec.OnUnknown) string {
	if p == spec.OnUnknownHalt {
		return "held for a person"
	}
	return "checked with the provider before any repeat"
}

// effectsByName indexes effects by name.
func effectsByName(es []spec.Effect) map[string]spec.Effect {
	m := make(map[string]spec.Effect, len(es))
	for _, e := range es {
		m[e.Name.Value] = e
	}
	return m
}

// effectsPos is where a contract's effects are: the first one, or the
// block when it has none.
func effectsPos(c *spec.Contract) spec.Position {
	if len(c.Effects) > 0 {
		return c.Effects[0].Pos
	}
	return c.Pos
}

// values returns the values of fields.
func values(fs []spec.Field[string]) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Value
	}
	return out
}

// listPos is where a list is: its first element, or fallback when it is
// empty.
func listPos(fs []spec.Field[string], fallback spec.Position) spec.Position {
	if len(fs) > 0 {
		return fs[0].Pos
	}
	return fallback
}

// list formats values as a YAML flow list: [a, b].
func list(vs []string) string {
	return "[" + strings.Join(vs, ", ") + "]"
}
