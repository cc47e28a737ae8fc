package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// block is one x-idempotency or x-idempotency-defaults block as written.
// Its scalar fields are Set only where the block gives them; the list
// fields, which have no Set flag of their own, record their presence in
// the has* flags. Merging turns blocks into a Contract.
type block struct {
	pos Position
	c   Contract
	// consumer holds the webhook-only fields (consumer, sender, source,
	// max-attempts, broker), Set where the block gives them.
	consumer Consumer

	hasNaturalKey bool
	hasInclude    bool
	hasExclude    bool
	hasUnordered  bool
	hasEffects    bool
	hasSteps      bool
}

// decoder reads contract blocks from YAML nodes of one file and collects
// every error it meets rather than stopping at the first.
type decoder struct {
	file string
	// origin names the file of nodes that came from elsewhere, such as
	// values an overlay inserted; nil when every node is from file.
	origin map[*yaml.Node]string
	errs   ErrorList
}

// pos is the position of node n.
func (d *decoder) pos(n *yaml.Node) Position {
	if f, ok := d.origin[n]; ok {
		return nodePos(f, n)
	}
	return nodePos(d.file, n)
}

// errorf records an error at node n under field path.
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &Error{Pos: d.pos(n), Path: path, Msg: fmt.Sprintf(format, args...)})
}

// The fields each object of the contract accepts, as written by users.
var (
	blockFields = []string{
		"key", "natural-key", "scope", "fingerprint", "retention", "tombstone",
		"concurrency", "wait-timeout", "replay", "store-failures", "mode", "lease", "effects", "steps",
		"sender", "source", "max-attempts", "broker", "consumer",
	}
	keyFields         = []string{"in", "name", "required", "max-length"}
	fingerprintFields = []string{"include", "exclude", "unordered"}
	effectFields      = []string{"name", "on-unknown", "payload"}
)

// decodeBlock decodes the block whose key node is keyNode and whose value
// is n; path names it in messages (x-idempotency or
// x-idempotency-defaults). It returns nil when the block is not an object.
func (d *decoder) decodeBlock(keyNode, n *yaml.Node, path string) *block {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want an object, got %s (write {} to take every default)", kindName(n))
		return nil
	}
	b := &block{pos: d.pos(keyNode)}
	b.c.Pos = b.pos
	d.fields(n, path, blockFields, func(k, v *yaml.Node, name, fpath string) {
		switch name {
		case "key":
			d.key(v, fpath, &b.c.Key)
		case "natural-key":
			b.hasNaturalKey = true
			b.c.NaturalKey = d.pointers(v, fpath)
		case "scope":
			b.c.Scope = d.scope(v, fpath)
		case "fingerprint":
			d.fingerprint(v, fpath, b)
		case "retention":
			b.c.Retention = d.duration(v, fpath)
		case "tombstone":
			b.c.Tombstone = d.duration(v, fpath)
		case "concurrency":
			b.c.Concurrency = enum(d, v, fpath, ConcurrencyWait, ConcurrencyReject)
		case "wait-timeout":
			b.c.WaitTimeout = d.duration(v, fpath)
		case "replay":
			b.c.Replay = enum(d, v, fpath, ReplayStored, ReplayCurrent)
		case "store-failures":
			b.c.StoreFailures = d.storeFailures(v, fpath)
		case "mode":
			b.c.Mode = enum(d, v, fpath, ModeAtomic, ModePhased)
		case "lease":
			b.c.Lease = d.duration(v, fpath)
		case "effects":
			b.hasEffects = true
			b.c.Effects = d.effects(v, fpath)
		case "steps":
			b.hasSteps = true
			b.c.Steps = d.steps(v, fpath)
		case "sender":
			b.consumer.Sender = enum(d, v, fpath, SenderStandardWebhooks, SenderSvix)
		case "source":
			b.consumer.Source = d.nonEmptyString(v, fpath)
		case "max-attempts":
			b.consumer.MaxAttempts = d.positiveInt(v, fpath)
		case "broker":
			b.consumer.Broker = d.broker(v, fpath)
		case "consumer":
			b.consumer.Name = d.consumerName(v, fpath)
		}
	})
	return b
}

// fields walks the entries of mapping n, reporting unknown keys, and calls
// each for every known one with its own field path. Duplicate keys are
// reported when the file is read (see duplicateKeys).
func (d *decoder) fields(n *yaml.Node, path string, known []string, each func(k, v *yaml.Node, name, fpath string)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		name := k.Value
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "want a field name, got %s", kindName(k))
			continue
		}
		if !slices.Contains(known, name) {
			d.errorf(k, path, "unknown field %q%s", name, didYouMean(name, known))
			continue
		}
		each(k, v, name, path+"."+name)
	}
}

// key decodes the key object into k.
func (d *decoder) key(n *yaml.Node, path string, k *Key) {
	if n == nil || n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want an object, got %s", kindName(n))
		return
	}
	d.fields(n, path, keyFields, func(_, v *yaml.Node, name, fpath string) {
		switch name {
		case "in":
			k.In = enum(d, v, fpath, KeyInHeader, KeyInBody)
		case "name":
			k.Name = d.nonEmptyString(v, fpath)
		case "required":
			k.Required = d.boolean(v, fpath)
		case "max-length":
			k.MaxLength = d.positiveInt(v, fpath)
		}
	})
}

// fingerprint decodes the fingerprint object into b.
func (d *decoder) fingerprint(n *yaml.Node, path string, b *block) {
	if n == nil || n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want an object, got %s", kindName(n))
		return
	}
	d.fields(n, path, fingerprintFields, func(_, v *yaml.Node, name, fpath string) {
		switch name {
		case "include":
			b.hasInclude = true
			b.c.Fingerprint.Include = d.pointers(v, fpath)
		case "exclude":
			b.hasExclude = true
			b.c.Fingerprint.Exclude = d.pointers(v, fpath)
		case "unordered":
			b.hasUnordered = true
			b.c.Fingerprint.Unordered = d.pointers(v, fpath)
		}
	})
}

// effects decodes the effects list.
func (d *decoder) effects(n *yaml.Node, path string) []Effect {
	var out []Effect
	d.namedObjects(n, path, "a list of effects", "an object with name and on-unknown", "an effect needs a name",
		func(item *yaml.Node, ipath string) {
			e := Effect{Pos: d.pos(item)}
			d.fields(item, ipath, effectFields, func(_, v *yaml.Node, name, fpath string) {
				switch name {
				case "name":
					e.Name = d.nonEmptyString(v, fpath)
				case "on-unknown":
					e.OnUnknown = enum(d, v, fpath, OnUnknownRetry, OnUnknownVerify, OnUnknownHalt)
				case "payload":
					e.Payload = d.nonEmptyString(v, fpath)
				}
			})
			out = append(out, e)
		})
	return out
}

// namedObjects walks a list of objects that each need a name, such as
// effects or steps, and calls each for every object with its field path.
// It reports a value that is not a list (want names the list), an item
// that is not an object (wantItem names it) and an object without a name
// (noName).
func (d *decoder) namedObjects(n *yaml.Node, path, want, wantItem, noName string, each func(item *yaml.Node, ipath string)) {
	if n == nil || n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want %s, got %s", want, kindName(n))
		return
	}
	for i, item := range n.Content {
		item = deref(item)
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if item == nil || item.Kind != yaml.MappingNode {
			d.errorf(item, ipath, "want %s, got %s", wantItem, kindName(item))
			continue
		}
		each(item, ipath)
		if _, v := mappingEntry(item, "name"); v == nil {
			d.errorf(item, ipath, "%s", noName)
		}
	}
}

// scalar reports whether n is a scalar with one of the given YAML tags and
// records a wrong-type error when it is not.
func (d *decoder) scalar(n *yaml.Node, path, want string, tags ...string) bool {
	if n != nil && n.Kind == yaml.ScalarNode && slices.Contains(tags, n.ShortTag()) {
		return true
	}
	d.errorf(n, path, "want %s, got %s", want, kindName(n))
	return false
}

// nonEmptyString decodes a string that must not be empty.
func (d *decoder) nonEmptyString(n *yaml.Node, path string) Field[string] {
	if !d.scalar(n, path, "a string", "!!str") {
		return Field[string]{}
	}
	if strings.TrimSpace(n.Value) == "" {
		d.errorf(n, path, "must not be empty")
		return Field[string]{}
	}
	return Field[string]{Value: n.Value, Pos: d.pos(n), Set: true}
}

// boolean decodes true or false.
func (d *decoder) boolean(n *yaml.Node, path string) Field[bool] {
	if !d.scalar(n, path, "true or false", "!!bool") {
		return Field[bool]{}
	}
	var v bool
	if err := n.Decode(&v); err != nil {
		d.errorf(n, path, "want true or false, got %s", kindName(n))
		return Field[bool]{}
	}
	return Field[bool]{Value: v, Pos: d.pos(n), Set: true}
}

// positiveInt decodes a whole number greater than zero.
func (d *decoder) positiveInt(n *yaml.Node, path string) Field[int] {
	if !d.scalar(n, path, "a whole number", "!!int") {
		return Field[int]{}
	}
	var v int
	if err := n.Decode(&v); err != nil {
		d.errorf(n, path, "want a whole number, got %s", kindName(n))
		return Field[int]{}
	}
	if v <= 0 {
		d.errorf(n, path, "must be greater than 0, got %d", v)
		return Field[int]{}
	}
	return Field[int]{Value: v, Pos: d.pos(n), Set: true}
}

// duration decodes a positive duration in Go syntax plus days.
func (d *decoder) duration(n *yaml.Node, path string) Field[time.Duration] {
	if !d.scalar(n, path, "a duration such as 72h or 30d", "!!str") {
		return Field[time.Duration]{}
	}
	v, err := ParseDuration(n.Value)
	switch {
	case err != nil:
		d.errorf(n, path, "invalid duration %q: %v", n.Value, err)
		return Field[time.Duration]{}
	case v <= 0:
		d.errorf(n, path, "duration %q must be positive", n.Value)
		return Field[time.Duration]{}
	}
	return Field[time.Duration]{Value: v, Pos: d.pos(n), Set: true}
}

// enum decodes a string that must be one of allowed.
func enum[T ~string](d *decoder, n *yaml.Node, path string, allowed ...T) Field[T] {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	if !d.scalar(n, path, oneOf(names), "!!str") {
		return Field[T]{}
	}
	if !slices.Contains(names, n.Value) {
		d.errorf(n, path, "unknown value %q (want %s)", n.Value, oneOf(names))
		return Field[T]{}
	}
	return Field[T]{Value: T(n.Value), Pos: d.pos(n), Set: true}
}

// pointers decodes a list of JSON pointers into the request body.
func (d *decoder) pointers(n *yaml.Node, path string) []Field[string] {
	if n == nil || n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list of JSON pointers such as [/items], got %s", kindName(n))
		return nil
	}
	out := make([]Field[string], 0, len(n.Content))
	for i, item := range n.Content {
		item = deref(item)
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if !d.scalar(item, ipath, "a JSON pointer such as /items", "!!str") {
			continue
		}
		if reason := pointerProblem(item.Value); reason != "" {
			d.errorf(item, ipath, "not a JSON pointer: %s", reason)
			continue
		}
		out = append(out, Field[string]{Value: item.Value, Pos: d.pos(item), Set: true})
	}
	return out
}

// pointerProblem says what makes p an unusable JSON pointer into a request
// body, or "" when it is fine; runtime/jsonpointer decides what a pointer
// is. The empty pointer, the whole body, is not accepted: leaving a list
// out already means the whole body.
func pointerProblem(p string) string {
	err := jsonpointer.Check(p)
	switch {
	case !strings.HasPrefix(p, "/"):
		return fmt.Sprintf("%q does not start with / (write /%s)", p, p)
	case err != nil:
		return strings.TrimPrefix(err.Error(), jsonpointer.ErrSyntax.Error()+": ")
	}
	return ""
}

// scope decodes the list of principal attributes a key lives in.
func (d *decoder) scope(n *yaml.Node, path string) Field[[]string] {
	if n == nil || n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list such as [tenant], got %s", kindName(n))
		return Field[[]string]{}
	}
	vals := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = deref(item)
		f := d.nonEmptyString(item, fmt.Sprintf("%s[%d]", path, i))
		if f.Set {
			vals = append(vals, f.Value)
		}
	}
	return Field[[]string]{Value: vals, Pos: d.pos(n), Set: true}
}

// storeFailures decodes the final failures that are stored: "4xx" or
// single client-error status codes.
func (d *decoder) storeFailures(n *yaml.Node, path string) Field[[]string] {
	if n == nil || n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list such as [4xx] or [409, 422], got %s", kindName(n))
		return Field[[]string]{}
	}
	vals := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = deref(item)
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if !d.scalar(item, ipath, `"4xx" or a status code from 400 to 499`, "!!str", "!!int") {
			continue
		}
		if item.Value != "4xx" {
			code, err := strconv.Atoi(item.Value)
			if err != nil || code < 400 || code > 499 {
				d.errorf(item, ipath, `unknown value %q (want "4xx" or a status code from 400 to 499)`, item.Value)
				continue
			}
		}
		vals = append(vals, item.Value)
	}
	return Field[[]string]{Value: vals, Pos: d.pos(n), Set: true}
}

// oneOf words a list of allowed values: "a or b", "a, b or c".
func oneOf(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
