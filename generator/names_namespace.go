package generator

import (
	"strconv"

	"github.com/idemgen/idemgen/spec"
)

// Namespace hands out Go names in one scope (a package, or the fields and
// methods of one struct) and keeps them unique. Every name is claimed for a
// source: a stable key saying what wants it (such as
// "#/components/schemas/Order" or "field start_time") and the position of
// that source, so a collision can name both sides.
//
// Two policies exist, and each caller picks one per kind of name:
//
//   - Claim refuses a name another source holds and reports both positions.
//     It is for names users write by hand against the generated code, where
//     a silent rename would surprise (operation names).
//   - Unique takes the name when it is free and otherwise the first free of
//     name2, name3, …. It is for derived names (schema types, inline types,
//     struct fields, enum constants). The result depends only on the order
//     of the calls, which the type plan makes deterministic by sorting.
//
// Claiming the same name again for the same key returns it unchanged, so a
// source asked twice gets one name. A Namespace is not safe for concurrent
// use; a plan owns its own.
type Namespace struct {
	taken map[string]claim
	byKey map[string]string
}

// claim records who holds a name.
type claim struct {
	key string
	pos spec.Position
}

// reservedKey marks names reserved with Reserve.
const reservedKey = "\x00reserved"

// NewNamespace returns an empty namespace.
func NewNamespace() *Namespace {
	return &Namespace{taken: map[string]claim{}, byKey: map[string]string{}}
}

// Reserve takes names that no source may have, such as the methods of a
// generated struct or the symbols the caller emits itself. Unique steps
// around them; Claim reports them as taken by what for says.
func (n *Namespace) Reserve(what string, names ...string) {
	for _, name := range names {
		n.taken[name] = claim{key: reservedKey + what}
	}
}

// Has reports whether name is taken.
func (n *Namespace) Has(name string) bool {
	_, ok := n.taken[name]
	return ok
}

// Claim gives name to the source key at pos, or fails with a *spec.Error at
// pos that names the position of the source holding it.
func (n *Namespace) Claim(name, key string, pos spec.Position) (string, error) {
	if got, ok := n.byKey[key]; ok && got == name {
		return name, nil
	}
	if c, ok := n.taken[name]; ok {
		if len(c.key) > len(reservedKey) && c.key[:len(reservedKey)] == reservedKey {
			return "", &spec.Error{Pos: pos, Msg: "Go name " + name + " of " + key + " is reserved for " + c.key[len(reservedKey):]}
		}
		return "", &spec.Error{Pos: pos, Msg: "Go name " + name + " of " + key + " collides with " + c.key + " at " + c.pos.String()}
	}
	n.take(name, key, pos)
	return name, nil
}

// Unique gives the source key at pos the name, or when another source holds
// it the first free of name2, name3, …; the same key asking again gets the
// name it got before.
func (n *Namespace) Unique(name, key string, pos spec.Position) string {
	if got, ok := n.byKey[key]; ok {
		return got
	}
	candidate := name
	for i := 2; n.Has(candidate); i++ {
		candidate = name + strconv.Itoa(i)
	}
	n.take(candidate, key, pos)
	return candidate
}

func (n *Namespace) take(name, key string, pos spec.Position) {
	n.taken[name] = claim{key: key, pos: pos}
	if _, ok := n.byKey[key]; !ok {
		n.byKey[key] = name
	}
}
