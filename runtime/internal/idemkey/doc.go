// Package idemkey is what every part of the runtime knows of an
// idempotency key itself: how a client writes it (a Structured Field
// string or a bare token, Parse) and how a key is named wherever it must
// not appear in clear (Hash, the keyed hash that logs, metrics and support
// output share, so a support person can match a log line to an ops row).
//
// It is a leaf: the standard library only.
package idemkey
