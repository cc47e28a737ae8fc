package form

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
)

// Decoder is a struct that reads itself from a form tree; generated request
// types implement it.
type Decoder interface {
	DecodeForm(n *Node) error
}

// Decode parses v and decodes the whole form into dst. A generated dst
// reports every key that does not fit, joined; see Failures.
func Decode(v url.Values, dst Decoder) error {
	root, err := Parse(v)
	if err != nil {
		return err
	}
	return dst.DecodeForm(root)
}

// Missing is the error for a required key the form does not have.
func Missing(n *Node, name string) error {
	return &Error{Key: n.childKey(name), Msg: "required key is missing"}
}

// Object checks that n can be decoded as a nested object: a key given a
// value instead of nested keys (shipping=x) is an error, not an empty
// object. Generated DecodeForm methods call it first.
func Object(n *Node) error {
	if err := n.textOnly(); err != nil {
		return err
	}
	if len(n.values) > 0 {
		return n.errorf("want nested keys, got a value")
	}
	return nil
}

// Only checks that the nested object n has no keys besides names, for a
// schema that says additionalProperties: false: each other key, in sorted
// order, is an error naming it, joined. Generated DecodeForm methods of
// such schemas call it after Object.
func Only(n *Node, names ...string) error {
	var errs []error
	for _, k := range n.Keys() {
		if !slices.Contains(names, k) {
			errs = append(errs, &Error{Key: n.childKey(k), Msg: "unknown key"})
		}
	}
	return errors.Join(errs...)
}

// Properties checks minProperties and maxProperties (max < 0: no bound)
// on the nested object n, counting its keys, known or not, as a JSON body
// counts its members. Generated DecodeForm methods of schemas with either
// keyword call it after decoding the fields.
func Properties(n *Node, min, max int) error {
	switch k := len(n.children); {
	case k < min:
		return n.errorf("must have at least " + strconv.Itoa(min) + " members")
	case max >= 0 && k > max:
		return n.errorf("must have at most " + strconv.Itoa(max) + " members")
	}
	return nil
}

// Members returns the member names of an object with arbitrary names, such
// as metadata[order]=42, in sorted order; decode each with Get. A key given
// an empty value and no members (metadata=) has no members.
func Members(n *Node) ([]string, error) {
	if err := n.textOnly(); err != nil {
		return nil, err
	}
	if len(n.children) == 0 {
		if len(n.values) == 1 && n.values[0] == "" {
			return []string{}, nil
		}
		return nil, n.errorf("want nested keys such as " + n.childKey("name"))
	}
	if len(n.values) > 0 {
		return nil, n.errorf("mixes a value with nested keys")
	}
	return n.Keys(), nil
}
