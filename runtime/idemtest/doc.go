// Package idemtest holds test helpers for the idempotency runtime: the
// contract tests generated code runs (RunContract, with a service's
// Fixture), the property test behind generated typed fingerprints
// (CheckFingerprint), a fake clock and Age, which moves the database's view
// of a scope's records forward, and a harness that serves requests
// in-process and releases many concurrent requests at once.
//
// It is a test-support stage. It may import the runtime packages (idem,
// idemimpl, fingerprint, schema, and the runtime's internal engine and
// fault hooks, which its contract scenarios inject; it lives under
// runtime/ for that) and pgx; production code must not import it, and it
// must not import the generator or the spec packages. For an isolated
// database per test use runtime/pgtest.
package idemtest
