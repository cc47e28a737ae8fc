//go:build long

package main

import "testing"

// TestGoldenTestsPass runs go test over the Go package of every case's
// expected output (see goldenModule): the typed-fingerprint property tests
// every case generates, and the contract tests of the cases that bring a
// fixture, must pass. TestGoldenCompiles vets the same module in the
// default suite; linking and running a test binary per case is what puts
// this one behind the long build tag.
func TestGoldenTestsPass(t *testing.T) {
	dir, packages := goldenModule(t)
	goldenGo(t, dir, packages, "test", "./...")
	t.Logf("%d golden packages pass their tests", packages)
}
