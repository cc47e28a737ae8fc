package fingerprint

import (
	"encoding/hex"
	"fmt"
	"slices"
)

// MaxBodySize is the default limit on the body [Spec.Sum] fingerprints.
const MaxBodySize = 1 << 20

// Spec selects the significant content of a request body with RFC 6901 JSON
// pointers; see the package documentation for wildcards and precedence.
type Spec struct {
	Include     []string // the only content that counts; empty: the whole body
	Exclude     []string // removed before anything else, "*" matches all
	Unordered   []string // arrays compared as multisets, "*" matches all
	MaxBodySize int      // longer bodies are rejected; 0 means MaxBodySize
}

// Request is what a fingerprint covers.
type Request struct {
	Method     string            // compared upper-cased
	Route      string            // the route template, e.g. /orders/{order_id}
	PathParams map[string]string // path parameter values by name
	Body       []byte            // JSON; nil or empty means no body
}

// Sum is a SHA-256 fingerprint.
type Sum [32]byte

// String returns s in lowercase hex.
func (s Sum) String() string { return hex.EncodeToString(s[:]) }

// compiledSpec is a Spec with its pointers parsed.
type compiledSpec struct {
	include   []string   // pointers as written, sorted in member order, unique
	includeTs [][]string // their tokens, in the same order
	exclude   [][]string
	unordered [][]string
	limit     int
}

// Validate reports the first malformed pointer in s, wrapping
// [ErrInvalidSpec]. [Spec.Sum] makes the same checks on every call; Validate
// lets a service fail at start-up instead.
func (s Spec) Validate() error {
	_, err := s.compile()
	return err
}

func (s Spec) compile() (compiledSpec, error) {
	c := compiledSpec{limit: s.MaxBodySize}
	if c.limit <= 0 {
		c.limit = MaxBodySize
	}
	if len(s.Include) > 0 {
		c.include = SortKeys(s.Include)
		c.include = slices.Compact(c.include)
		for _, p := range c.include {
			ts, err := parsePointer(p)
			if err != nil {
				return c, err
			}
			if slices.Contains(ts, wildcard) {
				return c, fmt.Errorf("%w: include pointer %q has a wildcard", ErrInvalidSpec, p)
			}
			c.includeTs = append(c.includeTs, ts)
		}
	}
	var err error
	if c.exclude, err = parsePointers(s.Exclude); err != nil {
		return c, err
	}
	if c.unordered, err = parsePointers(s.Unordered); err != nil {
		return c, err
	}
	return c, nil
}

func parsePointers(ps []string) ([][]string, error) {
	out := make([][]string, 0, len(ps))
	for _, p := range ps {
		ts, err := parsePointer(p)
		if err != nil {
			return nil, err
		}
		out = append(out, ts)
	}
	return out, nil
}

// Sum returns the fingerprint of r under s. Errors wrap [ErrBodyTooLarge],
// [ErrInvalidJSON] (the body), [ErrInvalidSpec] or [ErrInvalidValue] (method,
// route or path parameters that are not valid UTF-8).
func (s Spec) Sum(r Request) (Sum, error) {
	c, err := s.compile()
	if err != nil {
		return Sum{}, err
	}
	if len(r.Body) > c.limit {
		return Sum{}, fmt.Errorf("%w: %d bytes, limit %d", ErrBodyTooLarge, len(r.Body), c.limit)
	}
	if len(r.Body) == 0 {
		return SumCanonical(r.Method, r.Route, r.PathParams, nil)
	}
	d := getDocument()
	defer putDocument(d)
	if err := d.parse(r.Body); err != nil {
		return Sum{}, err
	}
	for _, ts := range c.exclude {
		d.mark(&d.root, ts, flagExcluded)
	}
	for _, ts := range c.unordered {
		d.mark(&d.root, ts, flagUnordered)
	}
	d.out = d.appendSelection(d.out[:0], c)
	if len(d.out) == 0 {
		return SumCanonical(r.Method, r.Route, r.PathParams, nil)
	}
	return SumCanonical(r.Method, r.Route, r.PathParams, d.out)
}

// appendSelection renders the body part of the envelope: the whole document,
// or, with include pointers, {"<pointer>":[value] or [] ...}. An excluded
// root without include pointers renders nothing.
func (d *document) appendSelection(dst []byte, c compiledSpec) []byte {
	if len(c.include) == 0 {
		if d.root.flags&flagExcluded != 0 {
			return dst
		}
		return d.appendValue(dst, &d.root)
	}
	dst = append(dst, '{')
	for i, p := range c.include {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, p)
		dst = append(dst, ':', '[')
		if n := d.resolve(&d.root, c.includeTs[i]); n != nil {
			dst = d.appendValue(dst, n)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}
