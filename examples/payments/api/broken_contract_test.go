package api

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// brokenChildEnv makes the fixture hand the contract tests
// randomKeyService, in the child process of
// TestContractCatchesAChargeWithoutTheStepKey.
const brokenChildEnv = "PAYMENTS_CONTRACT_BROKEN"

// failedPhased matches the line go test prints for a failed scenario of
// the child.
var failedPhased = regexp.MustCompile(`(?m)^\s*--- FAIL: TestContractCreatePayment/(\S+)`)

// The generated contract tests fail a service that charges without the
// step's key: a retry after a crash behind the call, and a takeover whose
// paused attempt goes on, make the bank charge twice. They run in a child
// process, so that their failure does not fail this test.
func TestContractCatchesAChargeWithoutTheStepKey(t *testing.T) {
	if os.Getenv(brokenChildEnv) != "" {
		t.Skip("the child process runs TestContractCreatePayment only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestContractCreatePayment$", "-test.v")
	cmd.Env = append(os.Environ(), brokenChildEnv+"=1", "DATABASE_URL="+pgtest.URL(t))
	out, err := cmd.CombinedOutput()
	var failed []string
	for _, m := range failedPhased.FindAllStringSubmatch(string(out), -1) {
		failed = append(failed, m[1])
	}
	for _, want := range []string{"crash_between_steps/before_transaction_2", "takeover_fences_the_paused_attempt"} {
		if !slices.Contains(failed, want) {
			t.Errorf("the broken service passed %s; failed: %v\nchild output:\n%s", want, failed, out)
		}
	}
	for _, f := range failed {
		if !slices.Contains([]string{"crash_between_steps", "crash_between_steps/before_transaction_2", "takeover_fences_the_paused_attempt"}, f) {
			t.Errorf("the broken service failed %s, which the step key does not decide", f)
		}
	}
	if err == nil {
		t.Errorf("the child passed; want it to fail\n%s", out)
	}
}
