package generator

import (
	"strconv"
	"strings"

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
//     name2, name3, … (name_2, name_3, … when name ends in a digit, so
//     GMT1 renamed is never confused with GMT12). It is for derived names (schema types, inline types,
//     struct fields, enum constants). The result depends only on the order
//     of the calls, which the type plan makes deterministic by sorting.
//
// Claiming the same name again for the same key returns it unchanged, so a
// source asked twice gets one name. A Namespace is not safe for concurrent
// use; a plan owns its own.
type Namespace struct {
	taken   map[string]claim
	byKey   map[string]string
	renamed []Rename
}

// Rename records a collision Unique resolved: the source Key at Pos wanted
// Want, which HeldBy at HeldPos already had, and got Got.
type Rename struct {
	Key     string
	Pos     spec.Position
	Want    string
	Got     string
	HeldBy  string
	HeldPos spec.Position
}

// Renames returns the collisions Unique resolved, in the order it resolved
// them.
func (n *Namespace) Renames() []Rename {
	return n.renamed
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

// hasKey reports whether the source key holds a name.
func (n *Namespace) hasKey(key string) bool {
	_, ok := n.byKey[key]
	return ok
}

// Claim gives name to the source key at pos, or fails with a *spec.Error at
// pos that names the position of the source holding it.
func (n *Namespace) Claim(name, key string, pos spec.Position) (string, error) {
	if got, ok := n.byKey[key]; ok && got == name {
		return name, nil
	}
	if c, ok := n.taken[name]; ok {
		if what, ok := strings.CutPrefix(c.key, reservedKey); ok {
			return "", &spec.Error{Pos: pos, Msg: "Go name " + name + " of " + key + " is reserved for " + what}
		}
		return "", &spec.Error{Pos: pos, Msg: "Go name " + name + " of " + key + " collides with " + c.key + " at " + c.pos.String()}
	}
	n.take(name, key, pos)
	return name, nil
}

// Unique gives the source key at pos the name, or when another source holds
// it the first free numbered one; the same key asking again gets the
// name it got before.
func (n *Namespace) Unique(name, key string, pos spec.Position) string {
	if got, ok := n.byKey[key]; ok {
		return got
	}
	sep := ""
	if last := name[len(name)-1]; last >= '0' && last <= '9' {
		sep = "_"
	}
	candidate := name
	for i := 2; n.Has(candidate); i++ {
		candidate = name + sep + strconv.Itoa(i)
	}
	if candidate != name {
		held := n.taken[name]
		n.renamed = append(n.renamed, Rename{Key: key, Pos: pos, Want: name, Got: candidate, HeldBy: strings.TrimPrefix(held.key, reservedKey), HeldPos: held.pos})
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
