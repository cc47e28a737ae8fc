// Package jsonpointer is the one implementation of RFC 6901 JSON pointers
// in idemgen: checking, splitting into tokens and escaping. The spec
// loader, the generator and the runtime all read pointers through it, so a
// pointer means the same thing at every stage.
//
// It is a leaf: the standard library only. Pointers are handled as
// strings, and a token is copied only when it carries a ~ escape, so
// walking a pointer allocates nothing in the common case.
package jsonpointer
