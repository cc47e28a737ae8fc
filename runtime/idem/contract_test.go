package idem_test

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
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
		idem.ProblemTypeBase:         httpapi.ProblemTypeBase,
		idem.ProblemKeyMissing:       httpapi.ProblemKeyMissing,
		idem.ProblemKeyMalformed:     httpapi.ProblemKeyMalformed,
		idem.ProblemBodyTooLarge:     httpapi.ProblemBodyTooLarge,
		idem.ProblemInvalidBody:      httpapi.ProblemInvalidBody,
		idem.ProblemScopeUnavailable: httpapi.ProblemScopeUnavailable,
		idem.ProblemFingerprint:      httpapi.ProblemFingerprint,
		idem.ProblemInProgress:       httpapi.ProblemInProgress,
		idem.ProblemExpired:          httpapi.ProblemExpired,
		idem.ProblemRequiresRecovery: httpapi.ProblemRequiresRecovery,
		idem.ProblemInternal:         httpapi.ProblemInternal,
		idem.ProblemNaturalKeyExists: httpapi.ProblemNaturalKeyExists,
		idem.ProblemRequestTimeout:   httpapi.ProblemRequestTimeout,
		idem.ProblemScopeBusy:        httpapi.ProblemScopeBusy,
		idem.ProblemResourceGone:     httpapi.ProblemResourceGone,
		idem.ProblemWebhookSignature: httpapi.ProblemWebhookSignature,
		idem.ProblemWebhookFailed:    httpapi.ProblemWebhookFailed,
		idem.ProblemMethodNotAllowed: httpapi.ProblemMethodNotAllowed,
	} {
		if face != eng {
			t.Errorf("problem type %q, the HTTP adapter's %q", face, eng)
		}
	}
	for face, eng := range map[idem.EventKind]core.EventKind{
		idem.EventNew: core.EventNew, idem.EventReplay: core.EventReplay, idem.EventConflict: core.EventConflict,
		idem.EventWaited: core.EventWaited, idem.EventWaitTimeout: core.EventWaitTimeout,
		idem.EventRejectInProgress: core.EventRejectInProgress, idem.EventExpired: core.EventExpired,
		idem.EventRolledBack: core.EventRolledBack, idem.EventRequiresRecovery: core.EventRequiresRecovery,
		idem.EventEffectEnqueued: core.EventEffectEnqueued, idem.EventCheckpoint: core.EventCheckpoint,
		idem.EventTakenOver: core.EventTakenOver, idem.EventUnavailable: core.EventUnavailable,
		idem.EventScopeBusy: core.EventScopeBusy,
	} {
		if int(face) != int(eng) {
			t.Errorf("event %s is %d, the core's %s %d", face, face, eng, eng)
		}
	}
}
