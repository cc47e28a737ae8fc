// Package jsondecode is the runtime stage that decodes JSON request bodies
// strictly and checks them against their schema, for the decoders idemgen
// generates: a generated decoder walks its struct's fields with a
// [Decoder] and calls its check methods, so the tokenising, the rules of
// strictness and the wording of every violation live once, in this
// package, and are tested here.
//
// Strict means what a parser in front of the service and the runtime's
// canonical fingerprint (runtime/fingerprint) both see: member names are
// matched byte for byte (never case-insensitively), a member given twice
// is refused, strings must be valid UTF-8 without lone surrogates and
// without NUL (PostgreSQL's text cannot hold it), and numbers are decoded
// without loss: an integer outside I-JSON's exact range ±(2^53−1) is
// refused wherever it appears (RFC 7493 section 2.2), so two distinct
// accepted bodies never fingerprint the same.
//
// A decoder goes on after a violation: every violation of a body is
// collected with its JSON pointer and reported at once by
// [Decoder.Finish] as an [*Error]. Only malformed JSON stops it.
//
// The tokeniser is this package's own: encoding/json/jsontext needs
// GOEXPERIMENT=jsonv2 in this Go, and a scanner over the byte slice that
// never builds a token value it does not need keeps the runtime free of
// further dependencies (see docs/benchmarks.md for the measurement).
//
// This package imports only the standard library and runtime/fingerprint
// (for uniqueItems, which compares elements by their canonical form).
package jsondecode
