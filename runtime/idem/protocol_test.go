package idem_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/idemgen/idemgen/runtime/idem"
)

// protocolEnv names the store protocol the tests' executors run: advisory
// or claim-first. Only the tests read it. Unset, the executors choose
// (ProtocolAuto: advisory on PostgreSQL), and TestMain runs the
// protocol-sensitive tests a second time, in a child process with
// protocolEnv=claim-first, so that `go test` proves both protocols.
const protocolEnv = "IDEM_TEST_PROTOCOL"

// protocolTests are the tests the claim-first run repeats when no -run
// pattern was given: everything whose outcome depends on the store
// protocol (concurrency, lost responses, stored failures, the SIGKILL
// test, wait and reject, retention, natural keys, effects and the round
// trips).
var protocolTests = []string{
	"TestConcurrentDuplicatesExecuteOnce", "TestDuplicateNeverStartsTheBusiness",
	"TestLostResponseReplays", "TestFingerprintDecidesReplayOr422", "TestNewKeyAndOtherScopeAreNewOperations",
	"TestStoredFailureReplays", "TestUnstoredFailureFreesKey", "TestKilledMidTransactionLeavesNothing",
	"TestDuplicateWhileFirstRuns", "TestBusinessKeepsSessionLockTimeout", "TestInProcessDuplicateUnderReject",
	"TestDuplicateStormTakesNoConnections", "TestDeadlockAnswers503", "TestRetentionAndTombstone",
	"TestNaturalKeyRefusesASecondEntityUnderANewKey", "TestNaturalKeyConcurrentClaims",
	"TestTypedHandlerRunsOnceAndEnqueuesOnce", "TestTypedRejectionIsStoredWithoutEffects",
	"TestUntypedRejectionIsStoredLikeTyped", "TestRejectionWithoutStoreFailuresFreesKey",
	"TestRoundTrips", "TestRecordCommittedBehindTheLockIsReplayed", "TestMaintenanceSweepsInBoundedBatchesWhileOperationsCommit",
	"TestTheWorkerRunsACommittedOperationsEffectOnce", "TestTypedHeadersReplay", "TestFailureLoggedOnceWithItsChain",
	"TestPanicLoggedOnce", "TestBusinessTransactionIsOwnedByExecutor",
}

// flagValue is the value of the test binary's flag name ("" when unset).
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// testProtocol is the protocol protocolEnv names, ProtocolAuto when unset.
func testProtocol() idem.Protocol {
	switch v := os.Getenv(protocolEnv); v {
	case "":
		return idem.ProtocolAuto
	case idem.ProtocolAdvisory.String():
		return idem.ProtocolAdvisory
	case idem.ProtocolClaimFirst.String():
		return idem.ProtocolClaimFirst
	default:
		panic(fmt.Sprintf("%s=%q: want %s or %s", protocolEnv, v, idem.ProtocolAdvisory, idem.ProtocolClaimFirst))
	}
}

// runOnClaimFirst runs this test binary again with protocolEnv set to
// claim-first: with the caller's own flags when they select tests (-run),
// otherwise with -test.run set to protocolTests; not at all for -bench or
// -list. It returns the child's exit code.
func runOnClaimFirst() int {
	if flagValue("test.bench") != "" || flagValue("test.list") != "" {
		return 0 // a benchmark run compares the protocols itself
	}
	args := os.Args[1:]
	if flagValue("test.run") == "" {
		args = append(args, "-test.run=^("+strings.Join(protocolTests, "|")+")$")
	}
	fmt.Printf("--- the protocol-sensitive tests again, %s=%s\n", protocolEnv, idem.ProtocolClaimFirst)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), protocolEnv+"="+idem.ProtocolClaimFirst.String())
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
