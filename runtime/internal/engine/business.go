package engine

import (
	"context"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// business is the step of an operation between the claim and the stored
// response, the same on every path (typed or raw body, protected or not):
// claim the entity's natural key when the call has one, then run fn, and
// turn a business refusal into its problem response. An entity another
// operation of the scope already created answers 409 natural-key-exists
// without running fn.
func (e *Executor) business(ctx context.Context, tx pgx.Tx, c *Contract, call Call, op *Operation, fn BusinessFunc) (*Response, error) {
	if call.NaturalKey != "" {
		holder, err := e.store.ClaimNaturalKey(ctx, tx, pgstore.NaturalKey{Scope: call.Scope, Operation: c.Operation,
			Key: call.NaturalKey, OperationID: op.id, At: e.clock.Now()})
		if err != nil {
			return nil, fmt.Errorf("idem: %s: %w", c.Operation, err)
		}
		if holder != "" {
			return naturalKeyExists(holder).response()
		}
	}
	resp, err := fn(ctx, tx, op, call.Request)
	if err != nil {
		if rej, ok := e.asRejection(err); ok {
			return rej.response()
		}
		return nil, fmt.Errorf("idem: %s: %w", c.Operation, &businessError{err})
	}
	if resp == nil || resp.Status < 100 || resp.Status > 999 {
		return nil, fmt.Errorf("idem: %s: business function returned no response or an invalid status", c.Operation)
	}
	return resp, nil
}

// naturalKeyExists is the refusal of a second entity with a natural key
// operation holder already claimed.
func naturalKeyExists(holder string) Rejection {
	return Rejection{Status: http.StatusConflict, Type: ProblemNaturalKeyExists, Title: "Entity exists",
		Detail: "Another request of this scope already created this entity, in operation " + holder + "."}
}
