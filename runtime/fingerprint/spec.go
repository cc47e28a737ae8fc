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
	MaxBodySize int      // longer bodies are rejected; 0 or less means MaxBodySize
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

// Validate reports the first malformed pointer in s, wrapping
// [ErrInvalidSpec]. [Spec.Sum] makes the same checks on every call; Validate
// lets a service fail at start-up instead.
func (s Spec) Validate() error {
	for _, p := range s.Include {
		if err := checkPointer(p, false); err != nil {
			return err
		}
	}
	for _, ps := range [][]string{s.Exclude, s.Unordered} {
		for _, p := range ps {
			if err := checkPointer(p, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// Sum returns the fingerprint of r under s. Errors wrap [ErrBodyTooLarge],
// [ErrInvalidJSON] (the body), [ErrInvalidSpec] or [ErrInvalidValue] (method,
// route or path parameters that are not valid UTF-8).
func (s Spec) Sum(r Request) (Sum, error) {
	if err := s.Validate(); err != nil {
		return Sum{}, err
	}
	limit := s.MaxBodySize
	if limit <= 0 {
		limit = MaxBodySize
	}
	if len(r.Body) > limit {
		return Sum{}, fmt.Errorf("%w: %d bytes, limit %d", ErrBodyTooLarge, len(r.Body), limit)
	}
	if len(r.Body) == 0 {
		return SumCanonical(r.Method, r.Route, r.PathParams, nil)
	}
	d := getDocument()
	defer putDocument(d)
	if err := d.parse(r.Body); err != nil {
		return Sum{}, err
	}
	for _, p := range s.Exclude {
		d.mark(&d.root, p, flagExcluded)
	}
	for _, p := range s.Unordered {
		d.mark(&d.root, p, flagUnordered)
	}
	d.out = d.appendSelection(d.out[:0], s.Include)
	return SumCanonical(r.Method, r.Route, r.PathParams, d.out)
}

// appendSelection renders the body part of the envelope: the whole document,
// or, with include pointers, {"<pointer>":[value] or [] ...}. An excluded
// root without include pointers renders nothing.
func (d *document) appendSelection(dst []byte, include []string) []byte {
	if len(include) == 0 {
		if d.root.flags&flagExcluded != 0 {
			return dst
		}
		return d.appendValue(dst, &d.root)
	}
	var buf [16]string
	sorted := append(buf[:0], include...)
	slices.SortFunc(sorted, compareUTF16[string, string])
	sorted = slices.Compact(sorted)
	dst = append(dst, '{')
	for i, p := range sorted {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, p)
		dst = append(dst, ':', '[')
		if n := d.resolve(&d.root, p); n != nil {
			dst = d.appendValue(dst, n)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}
