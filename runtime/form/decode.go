package form

import "net/url"

// Decoder is a struct that reads itself from a form tree; generated request
// types implement it.
type Decoder interface {
	DecodeForm(n *Node) error
}

// Decode parses v and decodes the whole form into dst.
func Decode(v url.Values, dst Decoder) error {
	root, err := Parse(v)
	if err != nil {
		return err
	}
	return dst.DecodeForm(root)
}

// Required decodes the child name of n with dec; a form without that key
// is an error.
func Required[T any](n *Node, name string, dec func(*Node) (T, error)) (T, error) {
	c := n.Get(name)
	if c == nil {
		var zero T
		return zero, &Error{Key: n.childKey(name), Msg: "required key is missing"}
	}
	return dec(c)
}

// Optional decodes the child name of n with dec into a new value, or
// returns nil when the form has no such key.
func Optional[T any](n *Node, name string, dec func(*Node) (T, error)) (*T, error) {
	c := n.Get(name)
	if c == nil {
		return nil, nil
	}
	v, err := dec(c)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// Omittable decodes the child name of n with dec, or returns the zero value
// (a nil slice or map) when the form has no such key. It is for optional
// fields whose Go type has its own nil.
func Omittable[T any](n *Node, name string, dec func(*Node) (T, error)) (T, error) {
	c := n.Get(name)
	if c == nil {
		var zero T
		return zero, nil
	}
	return dec(c)
}

// Object decodes a nested object into a new T through its DecodeForm
// method. A key given a value instead of nested keys (shipping=x) is an
// error, not an empty object.
func Object[T any, P interface {
	*T
	Decoder
}](n *Node) (T, error) {
	var v T
	if len(n.values) > 0 {
		return v, n.errorf("want nested keys, got a value")
	}
	err := P(&v).DecodeForm(n)
	return v, err
}

// Slice returns a decoder of arrays whose elements dec decodes (see
// [Node.Elems]).
func Slice[T any](dec func(*Node) (T, error)) func(*Node) ([]T, error) {
	return func(n *Node) ([]T, error) {
		elems, err := n.Elems()
		if err != nil {
			return nil, err
		}
		out := make([]T, len(elems))
		for i, e := range elems {
			if out[i], err = dec(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// Map returns a decoder of objects with arbitrary member names, such as
// metadata[order]=42, whose values dec decodes. A key given with no
// members (metadata=) decodes to an empty map.
func Map[T any](dec func(*Node) (T, error)) func(*Node) (map[string]T, error) {
	return func(n *Node) (map[string]T, error) {
		if len(n.children) == 0 {
			if len(n.values) == 1 && n.values[0] == "" {
				return map[string]T{}, nil
			}
			return nil, n.errorf("want nested keys such as " + n.childKey("name"))
		}
		if len(n.values) > 0 {
			return nil, n.errorf("mixes a value with nested keys")
		}
		out := make(map[string]T, len(n.children))
		for _, k := range n.Keys() {
			v, err := dec(n.children[k])
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	}
}

// Pointer returns a decoder that decodes with dec into a new value, for
// nullable array elements and map values.
func Pointer[T any](dec func(*Node) (T, error)) func(*Node) (*T, error) {
	return func(n *Node) (*T, error) {
		v, err := dec(n)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
}
