package spec

import (
	"cmp"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v4"
)

// MaxConsumerNameLength is the longest consumer name a block may give, in
// bytes.
const MaxConsumerNameLength = 100

// consumerName decodes a block's consumer: the name the inbox keys the
// consumer's messages by. It is 1 to MaxConsumerNameLength bytes of ASCII
// letters, digits, '_', '-' and '.', starting with a letter or a digit,
// so that it reads the same in the inbox, in logs, in metrics labels and
// on an `idemgen ops` command line, and pins an operationId written in
// the usual camelCase or snake_case.
func (d *decoder) consumerName(n *yaml.Node, path string) Field[string] {
	f := d.nonEmptyString(n, path)
	if !f.Set {
		return f
	}
	if reason := ConsumerNameProblem(f.Value); reason != "" {
		d.errorf(n, path, "%s (want 1 to %d letters, digits, '_', '-' or '.', starting with a letter or a digit, such as enterSettlement)", reason, MaxConsumerNameLength)
		return Field[string]{}
	}
	return f
}

// ConsumerNameProblem says why a block could not give s as its consumer
// name, "" when it could: `idemgen diff` asks it before it advises pinning
// an old name that came from an operationId, which may hold any text.
func ConsumerNameProblem(s string) string {
	if len(s) > MaxConsumerNameLength {
		return fmt.Sprintf("a consumer name of %d bytes is too long", len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '-' || c == '.'):
		case c < 0x20 || c > 0x7e:
			return fmt.Sprintf("byte %#x at %d is not allowed in a consumer name", c, i)
		default:
			return fmt.Sprintf("%q at %d is not allowed in a consumer name", c, i)
		}
	}
	return ""
}

// consumerCollisions reports a webhook whose consumer name another webhook
// of the document has too, at the one written later, with the first's
// position: two consumers of one name would share their inbox rows and
// their runtime registration.
func consumerCollisions(ops []*Operation) []*Error {
	byName := map[string][]*Operation{}
	for _, op := range ops {
		if op.Contract != nil && op.Contract.Consumer != nil && op.Contract.Consumer.Name.Value != "" {
			name := op.Contract.Consumer.Name.Value
			byName[name] = append(byName[name], op)
		}
	}
	var errs []*Error
	for _, same := range byName {
		if len(same) < 2 {
			continue
		}
		slices.SortFunc(same, func(a, b *Operation) int {
			pa, pb := a.Contract.Consumer.Name.Pos, b.Contract.Consumer.Name.Pos
			return cmp.Or(cmp.Compare(pa.File, pb.File), cmp.Compare(pa.Line, pb.Line), cmp.Compare(pa.Col, pb.Col))
		})
		first := same[0]
		for _, op := range same[1:] {
			name := op.Contract.Consumer.Name
			errs = append(errs, &Error{Pos: name.Pos, Path: "x-idempotency.consumer",
				Msg: fmt.Sprintf("webhook %s is the consumer %q (%s), and so is webhook %s (%s, at %s): two consumers of one name would share their messages in the inbox: give one of them a name of its own with consumer: <name>",
					op.Path, name.Value, nameFrom(name), first.Path, nameFrom(first.Contract.Consumer.Name), first.Contract.Consumer.Name.Pos)})
		}
	}
	return errs
}

// nameFrom says where a consumer's name comes from.
func nameFrom(name Field[string]) string {
	if name.Set {
		return "its consumer"
	}
	return "its operationId"
}
