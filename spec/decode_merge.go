package spec

import (
	"fmt"
	"math"
	"strings"

	"github.com/idemgen/idemgen/runtime/defaults"
)

// merge builds an operation's contract from its own block over the
// document's defaults block (nil when the document has none) over the
// built-in defaults of package runtime/defaults, the one table the runtime
// reads too. Each value keeps the position of the block that gave it; a
// built-in default is not Set and points at the operation's block.
func merge(op, docDefaults *block) *Contract {
	def := docDefaults
	if def == nil {
		def = &block{}
	}
	at := op.pos
	c := &Contract{Pos: at}

	c.Key.In = pick(op.c.Key.In, def.c.Key.In, KeyInHeader, at)
	var defaultName string
	if c.Key.In.Value == KeyInHeader {
		defaultName = defaults.KeyHeader
	}
	c.Key.Name = pick(op.c.Key.Name, def.c.Key.Name, defaultName, at)
	c.Key.Required = pick(op.c.Key.Required, def.c.Key.Required, defaults.KeyRequired, at)
	c.Key.MaxLength = pick(op.c.Key.MaxLength, def.c.Key.MaxLength, defaults.KeyMaxLength, at)

	c.NaturalKey = pickList(op.hasNaturalKey, op.c.NaturalKey, def.c.NaturalKey)
	c.Scope = pick(op.c.Scope, def.c.Scope, nil, at)
	c.Fingerprint.Include = pickList(op.hasInclude, op.c.Fingerprint.Include, def.c.Fingerprint.Include)
	c.Fingerprint.Exclude = pickList(op.hasExclude, op.c.Fingerprint.Exclude, def.c.Fingerprint.Exclude)
	c.Fingerprint.Unordered = pickList(op.hasUnordered, op.c.Fingerprint.Unordered, def.c.Fingerprint.Unordered)
	c.Retention = pick(op.c.Retention, def.c.Retention, defaults.Retention, at)
	c.Tombstone = pick(op.c.Tombstone, def.c.Tombstone, defaults.Tombstone, at)
	c.Concurrency = pick(op.c.Concurrency, def.c.Concurrency, Concurrency(defaults.Concurrency), at)
	c.WaitTimeout = pick(op.c.WaitTimeout, def.c.WaitTimeout, defaults.WaitTimeout, at)
	c.Replay = pick(op.c.Replay, def.c.Replay, Replay(defaults.Replay), at)
	c.StoreFailures = pick(op.c.StoreFailures, def.c.StoreFailures, defaults.StoreFailures(), at)
	c.Mode = pick(op.c.Mode, def.c.Mode, Mode(defaults.Mode), at)
	c.Lease = pick(op.c.Lease, def.c.Lease, defaults.Lease, at)
	c.Effects = pickList(op.hasEffects, op.c.Effects, def.c.Effects)
	for i := range c.Effects {
		e := &c.Effects[i]
		if !e.OnUnknown.Set {
			e.OnUnknown = Field[OnUnknown]{Value: OnUnknownRetry, Pos: e.Pos}
		}
	}
	c.Steps = pickList(op.hasSteps, op.c.Steps, def.c.Steps)
	for i := range c.Steps {
		s := &c.Steps[i]
		if !s.External.Set {
			s.External = Field[bool]{Pos: s.Pos}
		}
	}
	return c
}

// pick returns the operation's value if it gave one, else the defaults
// block's, else the built-in value positioned at the operation's block.
func pick[T any](op, def Field[T], builtin T, at Position) Field[T] {
	switch {
	case op.Set:
		return op
	case def.Set:
		return def
	default:
		return Field[T]{Value: builtin, Pos: at}
	}
}

// mergeConsumer sets the consumer side of the contract c of webhook o
// from the operation's block over the defaults block: its name in the
// inbox defaults to the operationId, its source to the webhook's name;
// webhook-id is the key header unless a block names another. On an
// operation under paths, a consumer field is an error at its position.
func mergeConsumer(d *decoder, c *Contract, op, def *block, o *Operation, path string) {
	if def == nil {
		def = &block{}
	}
	if !o.Webhook {
		for _, f := range []struct {
			set   bool
			pos   Position
			field string
		}{{op.consumer.Name.Set, op.consumer.Name.Pos, "consumer"}, {op.consumer.Sender.Set, op.consumer.Sender.Pos, "sender"}, {op.consumer.Source.Set, op.consumer.Source.Pos, "source"},
			{op.consumer.MaxAttempts.Set, op.consumer.MaxAttempts.Pos, "max-attempts"}, {op.consumer.Broker != nil, brokerPos(op.consumer.Broker), "broker"}} {
			if f.set {
				d.errs = append(d.errs, &Error{Pos: f.pos, Path: path + "." + f.field,
					Msg: f.field + " describes a consumer of messages (its name, a webhook's sender, or the broker it reads): it belongs on an x-idempotency block under webhooks, not on an operation under paths"})
			}
		}
		return
	}
	at := op.pos
	c.Consumer = &Consumer{
		Name:        pick(op.consumer.Name, Field[string]{}, o.ID, at),
		Sender:      pick(op.consumer.Sender, def.consumer.Sender, "", at),
		Source:      pick(op.consumer.Source, def.consumer.Source, o.Path, at),
		MaxAttempts: pick(op.consumer.MaxAttempts, def.consumer.MaxAttempts, DefaultMaxAttempts, at),
	}
	if op.consumer.Broker != nil {
		mergeBroker(d, c, op, path)
		return
	}
	if c.Key.In.Value == KeyInHeader && !op.c.Key.Name.Set && !def.c.Key.Name.Set {
		c.Key.Name.Value = WebhookKeyHeader
	}
}

// pickList returns the operation's list if the block has the field at all
// (an empty list overrides the defaults), else the defaults block's list.
func pickList[T any](opHas bool, op, def []T) []T {
	if opHas {
		return op
	}
	return def
}

// checkKey reports key settings that only make sense together: a body key
// names a JSON pointer, a header key a valid header field name. They are
// checked after merging because in and name may come from different blocks.
func checkKey(d *decoder, c *Contract, path string) {
	name := c.Key.Name
	switch c.Key.In.Value {
	case KeyInBody:
		if !name.Set {
			d.errs = append(d.errs, &Error{Pos: c.Key.In.Pos, Path: path + ".key.name",
				Msg: "a key in the body needs a name: the JSON pointer of the field, such as /idempotency_key"})
			return
		}
		if reason := pointerProblem(name.Value); reason != "" {
			d.errs = append(d.errs, &Error{Pos: name.Pos, Path: path + ".key.name",
				Msg: "with in: body the name is a JSON pointer: " + reason})
		}
	case KeyInHeader:
		if !validHeaderName(name.Value) {
			d.errs = append(d.errs, &Error{Pos: name.Pos, Path: path + ".key.name",
				Msg: fmt.Sprintf("invalid header name %q (want a token such as Idempotency-Key)", name.Value)})
		}
	}
}

// checkDurations reports a retention and tombstone whose sum, the time a
// record is kept, overflows a time.Duration (about 292 years).
func checkDurations(d *decoder, c *Contract, path string) {
	ret, tomb := c.Retention, c.Tombstone
	if ret.Value > math.MaxInt64-tomb.Value {
		at, field := tomb.Pos, ".tombstone"
		if !tomb.Set {
			at, field = ret.Pos, ".retention"
		}
		d.errs = append(d.errs, &Error{Pos: at, Path: path + field,
			Msg: fmt.Sprintf("retention %s plus tombstone %s is longer than the longest duration a record can be kept (about 292 years)", FormatDuration(ret.Value), FormatDuration(tomb.Value))})
	}
}

// validHeaderName reports whether s is an HTTP field name (an RFC 9110
// token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}
