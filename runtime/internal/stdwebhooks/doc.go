// Package stdwebhooks verifies Standard Webhooks 1.0 signatures: an
// HMAC-SHA256, keyed with the endpoint's secret, over
// "webhook-id.webhook-timestamp.body", sent base64-encoded in the
// webhook-signature header as space-separated "v1,<signature>" entries
// (several during a secret's rotation), with the timestamp within a
// tolerance (5 minutes) of the receiver's clock, which refuses replays of
// old captures. Svix signs the same way, with svix-* header names.
//
// Verification works on the raw body bytes, before anything parses them.
// Comparisons are constant-time.
//
// It is a leaf: the standard library only.
package stdwebhooks
