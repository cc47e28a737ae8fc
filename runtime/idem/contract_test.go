package idem_test

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/engine"
)

// NewHandler refuses a contract it could not honour, at start-up.
func TestNewHandlerRejectsUnusableContracts(t *testing.T) {
	pool, err := pgxpool.New(t.Context(), "postgres://unused@127.0.0.1:1/none") // never connects
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		modify func(*idemimpl.Contract)
		want   string
	}{
		{"no operation", func(c *idemimpl.Contract) { c.Operation = "" }, "without an operation name"},
		{"no route", func(c *idemimpl.Contract) { c.Route = "" }, "method and route are required"},
		{"two key sources", func(c *idemimpl.Contract) { c.Key.Header, c.Key.BodyPointer = "Idempotency-Key", "/k" }, "header and body pointer"},
		{"negative retention", func(c *idemimpl.Contract) { c.Retention = -1 }, "negative duration"},
		{"unknown concurrency", func(c *idemimpl.Contract) { c.Concurrency = 7 }, "unknown concurrency"},
		{"bad pointer", func(c *idemimpl.Contract) { c.Fingerprint.Include = []string{"customer"} }, "invalid spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := orderContract()
			tc.modify(&c)
			_, err := idemimpl.NewHandler(exec, c, tenantScope, createOrder)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewHandler: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := idemimpl.NewHandler(nil, orderContract(), tenantScope, createOrder); err == nil {
		t.Error("NewHandler without an executor succeeded")
	}
	if _, err := idem.NewExecutor(idem.Config{}); err == nil {
		t.Error("NewExecutor without a pool succeeded")
	}
}

func TestEventKindNames(t *testing.T) {
	for k, want := range map[idem.EventKind]string{
		idem.EventNew: "new", idem.EventReplay: "replay", idem.EventConflict: "conflict",
		idem.EventWaited: "waited", idem.EventWaitTimeout: "wait-timeout",
		idem.EventRejectInProgress: "reject-in-progress", idem.EventExpired: "expired",
		idem.EventRolledBack: "rolled-back", idem.EventRequiresRecovery: "requires-recovery",
		idem.EventEffectEnqueued: "effect-enqueued", idem.EventKind(0): "unknown",
	} {
		if got := k.String(); got != want {
			t.Errorf("EventKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// The face spells out the engine's problem types and event kinds, so that
// go doc shows them; they must be the engine's, one for one.
func TestFaceConstantsAreTheEngines(t *testing.T) {
	for face, eng := range map[string]string{
		idem.ProblemTypeBase:         engine.ProblemTypeBase,
		idem.ProblemKeyMissing:       engine.ProblemKeyMissing,
		idem.ProblemKeyMalformed:     engine.ProblemKeyMalformed,
		idem.ProblemBodyTooLarge:     engine.ProblemBodyTooLarge,
		idem.ProblemInvalidBody:      engine.ProblemInvalidBody,
		idem.ProblemScopeUnavailable: engine.ProblemScopeUnavailable,
		idem.ProblemFingerprint:      engine.ProblemFingerprint,
		idem.ProblemInProgress:       engine.ProblemInProgress,
		idem.ProblemExpired:          engine.ProblemExpired,
		idem.ProblemRequiresRecovery: engine.ProblemRequiresRecovery,
		idem.ProblemInternal:         engine.ProblemInternal,
		idem.ProblemNaturalKeyExists: engine.ProblemNaturalKeyExists,
	} {
		if face != eng {
			t.Errorf("problem type %q, engine's %q", face, eng)
		}
	}
	for face, eng := range map[idem.EventKind]engine.EventKind{
		idem.EventNew: engine.EventNew, idem.EventReplay: engine.EventReplay, idem.EventConflict: engine.EventConflict,
		idem.EventWaited: engine.EventWaited, idem.EventWaitTimeout: engine.EventWaitTimeout,
		idem.EventRejectInProgress: engine.EventRejectInProgress, idem.EventExpired: engine.EventExpired,
		idem.EventRolledBack: engine.EventRolledBack, idem.EventRequiresRecovery: engine.EventRequiresRecovery,
		idem.EventEffectEnqueued: engine.EventEffectEnqueued,
	} {
		if int(face) != int(eng) {
			t.Errorf("event %s is %d, the engine's %s %d", face, face, eng, eng)
		}
	}
}
