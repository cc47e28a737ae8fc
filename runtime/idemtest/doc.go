// Package idemtest holds test helpers for the idempotency runtime: the
// contract tests generated code runs (RunContract, with a service's
// Fixture), the property test behind generated typed fingerprints
// (CheckFingerprint), a fake clock, fault-injection hooks that hold or fail
// a request at an executor point, and a harness that releases many
// concurrent requests at once.
//
// It is a test-support stage. It may import the runtime packages (idem,
// pgstore, fingerprint) and pgx; production code must not import it, and
// it must not import the generator or the spec packages. For an isolated
// database per test use runtime/pgtest.
package idemtest
