package form

import (
	"strconv"
	"time"
)

// String reads a single value as it is.
func String(n *Node) (string, error) {
	return n.leaf()
}

// Int64 reads a single value as a decimal integer.
func Int64(n *Node) (int64, error) {
	s, err := n.leaf()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, n.errorf("invalid integer " + strconv.Quote(s))
	}
	return v, nil
}

// Int32 reads a single value as a decimal integer that fits 32 bits.
func Int32(n *Node) (int32, error) {
	s, err := n.leaf()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, n.errorf("invalid 32-bit integer " + strconv.Quote(s))
	}
	return int32(v), nil
}

// Float64 reads a single value as a decimal number.
func Float64(n *Node) (float64, error) {
	s, err := n.leaf()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, n.errorf("invalid number " + strconv.Quote(s))
	}
	return v, nil
}

// Bool reads a single value that is exactly true or false, the two forms
// JSON has, so a form body and a JSON body accept the same booleans.
func Bool(n *Node) (bool, error) {
	s, err := n.leaf()
	if err != nil {
		return false, err
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, n.errorf("invalid boolean " + strconv.Quote(s) + " (want true or false)")
}

// Time reads a single RFC 3339 date-time, the form OpenAPI's date-time
// format names.
func Time(n *Node) (time.Time, error) {
	s, err := n.leaf()
	if err != nil {
		return time.Time{}, err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, n.errorf("invalid RFC 3339 date-time " + strconv.Quote(s))
	}
	return v, nil
}
