package idem

import (
	"context"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// AttemptState is what became of an attempt, as a status lookup tells the
// client that sent it: what a retry with its key would meet.
type AttemptState = core.AttemptState

// The attempt states.
const (
	AttemptInProgress       = core.AttemptInProgress       // an attempt holds the key
	AttemptCompleted        = core.AttemptCompleted        // the answer is stored; a retry replays it
	AttemptFailed           = core.AttemptFailed           // a final failure is stored; a retry receives it
	AttemptRequiresRecovery = core.AttemptRequiresRecovery // the outcome is unknown; quote the operation id to support
	AttemptExpired          = core.AttemptExpired          // past retention; never run again
	AttemptUnknown          = core.AttemptUnknown          // no attempt of the operation under the key in the scope
)

// AttemptStatus is what became of an attempt: its state, its operation id
// (for support) and, once completed or failed, its stored answer.
type AttemptStatus = httpapi.AttemptStatus

// ProblemAttemptUnknown is the problem type a status route answers (404)
// for a key no attempt of its operation holds in the caller's scope.
const ProblemAttemptUnknown = httpapi.ProblemAttemptUnknown

// Status tells what became of the attempt of operation (its operationId)
// under key in scope, without running or changing anything: the lookup a
// generated status route makes. key is in either form a client sends it
// (errors wrap ErrKeyMalformed when it is neither); scope must come from
// the same trusted source as the operation's (ScopeFunc), and another
// scope's key reads as AttemptUnknown, at the same cost as a key never
// sent. Expiry follows the executor's Clock, as a retry's does.
func (e *Executor) Status(ctx context.Context, operation, scope, key string) (AttemptStatus, error) {
	return httpapi.LookUp(ctx, e, operation, scope, key)
}
