package idem

import "encoding/json"

// Nullable is an optional member whose schema allows null, as a generated
// request type holds it: absent (Set is false), null (Set and Null), or a
// value (Set, with Value). A pointer would fold null into absent, which the
// runtime's fingerprint of the same bytes keeps apart, and which a merge
// patch tells apart too. Generated types tag such fields omitzero, so that
// an absent member stays absent when the value is encoded again.
type Nullable[T any] struct {
	Value T
	Set   bool
	Null  bool
}

// IsZero reports whether the member is absent.
func (n Nullable[T]) IsZero() bool { return !n.Set }

// MarshalJSON writes null or the value.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON reads null or a value; either way the member is set.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	var zero T
	n.Value, n.Set, n.Null = zero, true, string(b) == "null"
	if n.Null {
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}
