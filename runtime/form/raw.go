package form

import "encoding/json"

// Raw turns a subtree into JSON for fields the form cannot type (unions and
// free-form values): a single value becomes a JSON string, repeated values
// an array of strings, children that are all array indexes an array, and
// other children an object with its members in sorted order. A form has no
// numbers, booleans or null, so those arrive as strings.
// A key with both a value and nested keys (a=1&a[b]=2) is an error.
func Raw(n *Node) (json.RawMessage, error) {
	return appendJSON(nil, n)
}

// JSON decodes a subtree into T with encoding/json after turning it into
// JSON as Raw does; it is for fields bound to existing Go types with
// x-go-type, which know how to read JSON but not forms.
func JSON[T any](n *Node) (T, error) {
	var v T
	data, err := appendJSON(nil, n)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, n.errorf(err.Error())
	}
	return v, nil
}

func appendJSON(dst []byte, n *Node) ([]byte, error) {
	if err := n.textOnly(); err != nil {
		return nil, err
	}
	if len(n.children) == 0 {
		if len(n.values) == 1 {
			return appendString(dst, n.values[0]), nil
		}
		dst = append(dst, '[')
		for i, v := range n.values {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, v)
		}
		return append(dst, ']'), nil
	}
	if len(n.values) > 0 {
		return nil, n.errorf("mixes a value with nested keys")
	}
	if elems, err := n.Elems(); err == nil {
		dst = append(dst, '[')
		for i, e := range elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSON(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	dst = append(dst, '{')
	for i, k := range n.Keys() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendJSON(dst, n.children[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendString writes s as a JSON string; encoding/json's escaping of a
// string cannot fail.
func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}
