// Package fingerprint is the runtime stage that decides whether two requests
// are "the same operation": it canonicalises JSON per RFC 8785 (JCS), selects
// the significant content of a request body with JSON pointers, and hashes
// method, route, path parameters and that content with SHA-256.
//
// # Canonical form
//
// [Canonicalize] implements RFC 8785 on I-JSON input: object members are
// sorted by the UTF-16 code units of their names, strings are escaped exactly
// as ECMAScript's JSON.stringify does, numbers are written as ECMAScript's
// Number.prototype.toString writes IEEE-754 doubles, and no whitespace is
// emitted. Duplicate member names, invalid UTF-8, lone surrogates in \u
// escapes and numbers that overflow a double are errors wrapping
// [ErrInvalidJSON]. Every number is read as a double, exactly as the standard
// says: integers beyond 2^53 lose precision, so 9007199254740993 and
// 9007199254740992 canonicalise (and fingerprint) identically. Nesting deeper
// than 1000 levels is rejected.
//
// # Fingerprints
//
// [Spec.Sum] hashes one canonical JSON envelope:
//
//	{"body":B,"method":M,"params":{...},"route":R,"v":1}
//
// M is the upper-cased method, params holds the path parameters (sorted like
// any JCS object), and "body" is omitted when the request has no body. B is the
// whole body when [Spec.Include] is empty; otherwise an object whose member
// names are the include pointers as written and whose values are a
// one-element array holding the selected value, or an empty array when the
// pointer does not resolve, so {"a":null} and {} differ when /a is included.
//
// Pointers are RFC 6901 (with ~0 and ~1 escapes; array indexes in decimal).
// In [Spec.Exclude] and [Spec.Unordered] the token "*" stands for every
// element of an array or every member of an object, so /items/*/client_ref
// addresses client_ref in every item; a member literally named "*" cannot be
// addressed there. Include pointers take no wildcard. All pointers address
// the original body: excluding /items/0 does not renumber the other items
// for another pointer. Exclusion wins over inclusion, and an unordered
// pointer that lands on something other than an array changes nothing.
// Unordered arrays are sorted by the canonical bytes of their elements, after
// exclusions inside the elements; duplicates are kept.
//
// The "v" member versions this layout: fingerprints are stored with
// idempotency keys, so any change to the bytes above must change v.
//
// # Generated code
//
// Generated typed fingerprints do not re-implement any of this: they walk
// their typed fields with a [Writer] inside [SumWith] (or pass a Writer's
// [Writer.Result] to [SumCanonical]), emitting members in the order
// [SortKeys] gives at generation time, arrays under an unordered pointer with
// [Writer.BeginUnorderedArray], and nothing for excluded members. With
// include pointers the generated code writes the object described above
// itself: w.Key(pointer), w.BeginArray(), the value if present,
// w.EndArray(), pointers in SortKeys order. For the same content the sum
// equals [Spec.Sum] byte for byte.
//
// Two differences between a typed decode and this package are the
// generator's to handle. encoding/json accepts duplicate names, invalid UTF-8
// and lone surrogates, which [Spec.Sum] rejects; generated decoders
// (runtime/jsondecode) refuse them too, and integers beyond ±(2^53−1),
// which this package would round. And a typed decode could fold wire
// forms that differ here, so generated types keep them apart: an optional
// member that allows null is an idem.Nullable ("a":null is not a missing
// a), an optional array or object is nil only when absent ("a":[] is kept
// and written, the field tagged omitzero), and a date-time keeps its text
// (10:00:00Z and 10:00:00.000Z are different strings here).
//
// This package imports only the standard library and runtime/jsonpointer
// (a leaf); it must not import other idemgen packages, pgx, or
// encoding/json outside tests.
package fingerprint
