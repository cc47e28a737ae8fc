package idemtest

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// Fixture is what a service supplies for one operation's contract tests.
type Fixture[T any] struct {
	// Request returns a valid request the business accepts in scope, as
	// the operation's typed request (its parameters and body). An
	// operation on an existing resource (cancel an order) creates that
	// resource in scope first. Each call may return a request for a new
	// entity (a fresh natural key); RunContract calls it once per
	// operation a scenario starts and reuses that request for the
	// scenario's retries. Request must not return a value another call
	// still holds: Change mutates it.
	Request func(scope string) *T
	// Effects counts the operation's business effects visible in the
	// database for a scope (for example rows in orders). The scope is the
	// one the executor hands the business function as Operation.Scope, so
	// the business must record it with its effects.
	Effects func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error)
	// External counts, for a phased operation, what its external steps
	// made the providers act on for a scope (for example the charges a
	// fake bank performed, not counting a repeated key); nil leaves it
	// uncounted. RunContract does not use it.
	External func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error)
	// Touch changes what the operation created in scope (every such
	// resource: set a status, bump a counter) as a later request of the
	// service would, so that a replay can show whether it answers the
	// first answer (replay: stored) or the resource as it is now (replay:
	// current). Nil skips that scenario.
	Touch func(ctx context.Context, pool *pgxpool.Pool, scope string) error
}

// ContractCase is one generated operation under test.
type ContractCase[T any] struct {
	Operation idemimpl.Typed[T] // as the generated Routes wires it
	// ConnString names a database/schema holding the business tables and
	// (after RunContract migrates it) the idempotency tables. Give each
	// RunContract a schema of its own (pgtest.ConnString): the retention
	// scenario sweeps the idempotency table, and a sweep is by time, not
	// by scope.
	ConnString string
	Fixture    Fixture[T]
	// Change alters a significant field of a request so it fingerprints
	// differently; nil when the generator found none.
	Change func(*T)
	// NaturalKey is true when the request names its entity: a natural key
	// in the contract, or an existing resource in the path (cancel order
	// 42). Then the same content under a new key is the same entity, and
	// the "new key, two effects" scenario does not apply.
	NaturalKey bool
	// Encode renders a typed request as a request body and its
	// Content-Type; nil means JSON (encoding/json) of the whole value.
	Encode func(*T) ([]byte, string, error)
	// PathParams returns the path parameters of a typed request by their
	// OpenAPI names, for the URL; nil means the route has none.
	PathParams func(*T) map[string]string
	// Parameters returns the query parameters and the headers (header and
	// cookie parameters) of a typed request, sent with each of its
	// requests; nil means it has none.
	Parameters func(*T) (url.Values, http.Header)
	// Mount is the generated mount function of the operation: the
	// ServeMux pattern Register uses and the handler as the router serves
	// it, so the tests go through exactly the routing of the service. Nil
	// mounts the handler at the contract's method and route as they are.
	Mount func(http.Handler) (string, http.Handler)
}

// RunContract runs the operation's contract as subtests of t, against
// PostgreSQL. It migrates the idempotency tables into c.ConnString (schema
// "", so the connection string's search_path decides) and serves every
// request through idemimpl.NewTypedHandler mounted on an http.ServeMux by the
// case's Mount, as the generated Register mounts it, at a URL built from
// the request's path parameters (PathParams), with its query parameters
// and headers (Parameters). Each scenario builds its own executors, hooks
// and clock, and uses scopes of its own, so scenarios never see each
// other's records or effects; the scope comes from the X-Idemtest-Scope
// header, a trusted
// scope function of the test (the service's own scope function is not
// under test here).
//
// The key travels in the contract's header, or, when Key.BodyPointer is
// set, in the body: the encoded body is decoded as JSON, the member at the
// pointer is set to the scenario's key (intermediate objects are created)
// and the body is encoded again. A body key therefore needs a JSON body.
//
// The scenarios, in order:
//
//   - concurrent duplicates: 16 identical requests over 4 pools released
//     together, 3 rounds with fresh keys, give one effect per round and one
//     answer (under concurrency reject, a duplicate may also get the 409
//     operation-in-progress problem). The wait-timeout is raised to 30s
//     here so a slow machine gives replays, not 409s; the timeout itself is
//     the wait-timeout scenario's.
//   - lost response: the response of a committed request is lost; the
//     retry replays the stored answer.
//   - changed field: the same key with a changed significant field is a 422
//     idempotency-key-reused problem, and runs nothing.
//   - new key: the same content under a new key is a second operation
//     (skipped for a natural key).
//   - other scope: the same key in another scope is an independent
//     operation.
//   - wait-timeout: a duplicate of a request held inside its transaction
//     gets 409 operation-in-progress with Retry-After (the wait-timeout is
//     shortened to 300ms to keep the suite fast); nothing of the held
//     request is visible before it commits.
//   - retention: past the contract's retention a retry is a 409
//     operation-expired and runs nothing, also after the sweep made the
//     record a tombstone; past the tombstone period the sweep deletes the
//     record and the key is forgotten: it runs as a new operation, which
//     the business may accept or refuse with a 4xx of its own (a unique
//     constraint of its table, say). Time moves where it decides, on
//     the database's view of this scenario's records (Age), so its sweeps,
//     on the database's clock, never reach the other scenarios' records
//     before their own retention ends.
//   - rolled back: an attempt that fails after the business function ran,
//     before commit, leaves no effect, and its retry runs once.
//   - replay after a change: Fixture.Touch changes the resource a
//     committed request created; under replay: stored the retry replays
//     the first answer byte for byte, under replay: current it replays
//     the resource as it is now, different from the first answer (skipped
//     without Touch).
func RunContract[T any](t *testing.T, c ContractCase[T]) {
	t.Helper()
	newContractRun(t, c).runAll(t)
}

// runAll runs the scenarios of RunContract.
func (r *contractRun[T]) runAll(t *testing.T) {
	t.Run("concurrent_duplicates_one_effect", r.concurrentDuplicates)
	t.Run("lost_response_replays", r.lostResponse)
	t.Run("changed_field_422", r.changedField)
	t.Run("new_key_new_operation", r.newKey)
	t.Run("other_scope_independent", r.otherScope)
	t.Run("past_wait_timeout_409", r.pastWaitTimeout)
	t.Run("retention_expired_then_purged", r.retention)
	t.Run("rolled_back_attempt_leaves_no_effect", r.rolledBack)
	t.Run("replay_after_resource_change", r.replayAfterChange)
}
