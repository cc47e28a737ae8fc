package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The rules on fingerprint pointers: they must exist in the request schema,
// unordered ones must be arrays, and volatile fields must stay out.

var ruleFingerprintPointerMissing = Rule{
	ID:       "IDEM001",
	Name:     "fingerprint-pointer-missing",
	Severity: SeverityError,
	Summary:  "a fingerprint include, exclude or unordered pointer that the request schema does not have",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for _, list := range fingerprintLists(r.c) {
			for i, f := range list.fields {
				path := fmt.Sprintf("x-idempotency.fingerprint.%s[%d]", list.name, i)
				if p, err := parsePointer(f.Value); err == nil && list.name == "include" && slices.Contains(p, "*") {
					r.report(f.Pos, path,
						fmt.Sprintf("fingerprint.include %s has a * wildcard, which include pointers do not take: the runtime refuses the contract", f.Value),
						"include the whole array, such as /items, and exclude what is not significant, such as /items/*/note")
					continue
				}
				r.checkPointer(f, path, "fingerprint."+list.name)
			}
		}
	},
}

var ruleUnorderedNotArray = Rule{
	ID:       "IDEM003",
	Name:     "unordered-not-array",
	Severity: SeverityError,
	Summary:  "a fingerprint unordered pointer that does not point at an array",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		body := requestSchema(r.op)
		for i, f := range r.c.Fingerprint.Unordered {
			p, err := parsePointer(f.Value)
			if err != nil || body == nil {
				continue
			}
			res := resolve(body, p)
			if res.status != lookupFound || isArray(res.schema) {
				continue
			}
			what := "has no type"
			if types := typesOf(res.schema); len(types) > 0 {
				what = "is " + strings.Join(types, " or ")
			}
			r.report(f.Pos, fmt.Sprintf("x-idempotency.fingerprint.unordered[%d]", i),
				fmt.Sprintf("fingerprint.unordered %s %s, not an array; only arrays can be compared in any order", f.Value, what),
				"remove it from unordered, or point at the array itself")
		}
	},
}

var ruleVolatileFingerprint = Rule{
	ID:       "IDEM008",
	Name:     "volatile-field-in-fingerprint",
	Severity: SeverityWarning,
	Summary:  "a volatile-looking field (timestamp, nonce, request or trace id, *_at) inside the fingerprint",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		excludes := parsedPointers(r.c.Fingerprint.Exclude)
		body := requestSchema(r.op)
		if len(r.c.Fingerprint.Include) == 0 {
			for _, v := range volatileBelow(body, pointer{}, excludes) {
				r.report(r.c.Pos, "x-idempotency.fingerprint",
					fmt.Sprintf("the whole request body is fingerprinted and it has %s, which looks volatile: a client retry that sets it anew is refused with 422", v),
					fmt.Sprintf("add %s to fingerprint.exclude", v))
			}
			return
		}
		for i, f := range r.c.Fingerprint.Include {
			p, err := parsePointer(f.Value)
			if err != nil {
				continue
			}
			path := fmt.Sprintf("x-idempotency.fingerprint.include[%d]", i)
			if name, ok := volatileToken(p); ok {
				r.report(f.Pos, path,
					fmt.Sprintf("fingerprint.include %s looks volatile (%q): a client retry that sets it anew is refused with 422", f.Value, name),
					"remove it from fingerprint.include")
				continue
			}
			if body == nil {
				continue
			}
			res := resolve(body, p)
			if res.status != lookupFound {
				continue
			}
			for _, v := range volatileBelow(res.schema, p, excludes) {
				r.report(f.Pos, path,
					fmt.Sprintf("fingerprint.include %s takes in %s, which looks volatile: a client retry that sets it anew is refused with 422", f.Value, v),
					fmt.Sprintf("add %s to fingerprint.exclude", v))
			}
		}
	},
}

// pointerList is one named list of fingerprint pointers.
type pointerList struct {
	name   string
	fields []Field[string]
}

// fingerprintLists returns the fingerprint's pointer lists in the order
// they are documented.
func fingerprintLists(c *Contract) []pointerList {
	return []pointerList{
		{"include", c.Fingerprint.Include},
		{"exclude", c.Fingerprint.Exclude},
		{"unordered", c.Fingerprint.Unordered},
	}
}

// checkPointer reports a pointer that is malformed or that the request
// schema does not have. what names the list in the message.
func (r *ruleRun) checkPointer(f Field[string], path, what string) {
	p, err := parsePointer(f.Value)
	if err != nil {
		r.report(f.Pos, path, fmt.Sprintf("%s: %v", what, err), "write a JSON pointer such as /customer_id or /items/*/sku")
		return
	}
	body := requestSchema(r.op)
	if body == nil {
		r.report(f.Pos, path,
			fmt.Sprintf("%s %s points into the request body, but %s has no request body schema", what, f.Value, r.opName()),
			"document the request body, or remove the pointer")
		return
	}
	if res := resolve(body, p); res.status == lookupMissing {
		r.report(f.Pos, path,
			fmt.Sprintf("%s %s is not in the request schema: %s", what, f.Value, res.reason),
			"name a property of the request body; address array elements as /items/*/sku")
	}
}

// parsedPointers parses the valid pointers of a list and drops the rest;
// IDEM001 reports those.
func parsedPointers(fields []Field[string]) []pointer {
	var out []pointer
	for _, f := range fields {
		if p, err := parsePointer(f.Value); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// volatileBelow lists, as pointers, the volatile-looking fields below the
// schema at, which the excludes do not cover. A volatile field hides the
// fields below it.
func volatileBelow(s *openapi3.Schema, at pointer, excludes []pointer) []string {
	var found []pointer
	walkFields(s, func(rel pointer, name string) {
		p := append(append(pointer{}, at...), rel...)
		if !isVolatileName(name) {
			return
		}
		covered := func(q pointer) bool { return q.covers(p) }
		if slices.ContainsFunc(found, covered) || slices.ContainsFunc(excludes, covered) {
			return
		}
		found = append(found, p)
	})
	out := make([]string, len(found))
	for i, p := range found {
		out[i] = p.String()
	}
	return out
}

// volatileToken returns the first token of p that looks volatile.
func volatileToken(p pointer) (string, bool) {
	for _, tok := range p {
		if isVolatileName(tok) {
			return tok, true
		}
	}
	return "", false
}

// volatileNames are field names, lower-cased without _ and -, that
// usually change on every attempt of the same operation.
var volatileNames = []string{"timestamp", "nonce", "requestid", "traceid", "spanid", "correlationid", "traceparent", "tracestate"}

// nameSeparators drops the separators of a field name, so snake, kebab
// and camel case compare alike.
var nameSeparators = strings.NewReplacer("_", "", "-", "")

// isVolatileName reports whether a field name looks like something a
// client sets anew on every attempt: a timestamp, a nonce, a request,
// trace or correlation id, or a point in time named *_at or *At.
func isVolatileName(name string) bool {
	if strings.HasSuffix(name, "_at") && len(name) > len("_at") {
		return true
	}
	if n := len(name); n > 2 && strings.HasSuffix(name, "At") && name[n-3] >= 'a' && name[n-3] <= 'z' {
		return true
	}
	flat := nameSeparators.Replace(strings.ToLower(name))
	for _, v := range volatileNames {
		if strings.HasSuffix(flat, v) || (v == "timestamp" && strings.Contains(flat, v)) {
			return true
		}
	}
	return false
}
