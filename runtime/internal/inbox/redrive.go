package inbox

import (
	"context"
	"fmt"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox/internal/sqlcdb"
)

// Redrive delivers, from their stored bodies, up to batch messages of this
// consumer that support moved from dead to retry (idemgen ops
// retry-message), each once: a success processes it, a failure makes it
// dead again at once. It returns what became of each. Two consumers
// redriving at once deliver each message once: the second finds it
// decided. The executor's Maintain calls it (redriveAll) at each of its
// rounds; a service that runs no Maintain calls it itself.
func (c *Consumer) Redrive(ctx context.Context, batch int) ([]Result, error) {
	if err := c.requireSchema(ctx); err != nil {
		return nil, err
	}
	q := sqlcdb.New(c.tables.On(core.PoolOf(c.cfg.Executor)))
	rows, err := q.ListRetries(ctx, sqlcdb.ListRetriesParams{Consumer: c.cfg.Name, Batch: int32(max(batch, 1))})
	if err != nil {
		return nil, fmt.Errorf("idem: consumer %s: listing retries: %w", c.cfg.Name, err)
	}
	var out []Result
	for _, row := range rows {
		r, err := c.Deliver(ctx, Message{Source: row.Source, ID: row.MessageID, Body: row.Body})
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// redriveBatch is how many retried messages one Redrive of redriveAll
// lists.
const redriveBatch = 100

// redriveAll redrives, for the executor's Maintain, batches of retried
// messages until one comes back short, and returns how many it delivered.
func (c *Consumer) redriveAll(ctx context.Context) (int, error) {
	n := 0
	for {
		res, err := c.Redrive(ctx, redriveBatch)
		n += len(res)
		if err != nil || len(res) < redriveBatch {
			return n, err
		}
	}
}
