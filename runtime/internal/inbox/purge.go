package inbox

import (
	"context"
	"fmt"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox/internal/sqlcdb"
	"github.com/idemgen/idemgen/runtime/internal/tables"
)

// Purge deletes up to batch processed messages whose retention has ended
// by e's clock, of every consumer, and returns how many it deleted: a
// redelivery after that is handled as a new message. Failed and dead
// messages stay until they are processed.
func Purge(ctx context.Context, e *core.Executor, batch int) (int64, error) {
	q := sqlcdb.New(tables.NewSchema(core.SchemaOf(e)).On(core.PoolOf(e)))
	n, err := q.DeleteExpired(ctx, sqlcdb.DeleteExpiredParams{Before: timestamptz(core.ClockOf(e).Now()), Batch: int32(batch)})
	if err != nil {
		return 0, fmt.Errorf("idem: purging the inbox: %w", err)
	}
	return n, nil
}
