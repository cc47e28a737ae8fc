package core

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
)

// MessageRedriver delivers, for Maintain, the messages of one consumer
// that support moved to retry (idemgen ops retry-message), and returns
// how many it delivered. runtime/internal/inbox registers one per
// consumer; core cannot import it.
type MessageRedriver func(ctx context.Context) (int, error)

// RegisterMessageRedriver registers r as the redriver of the consumer
// named name with the executor h holds, so that Maintain delivers the
// consumer's retried messages without the service's own loop. A second
// registration of the name replaces the first.
func RegisterMessageRedriver(h Holder, name string, r MessageRedriver) error {
	e := Of(h)
	if e == nil || name == "" || r == nil {
		return errors.New("idem: RegisterMessageRedriver needs an executor, a consumer name and a redriver")
	}
	e.redrivers.set(name, r)
	return nil
}

// redriveMessages runs, for Maintain, every registered consumer's
// redriver once, in the order of their names, and logs what each
// delivered; a failing one is logged and the others still run.
func (e *Executor) redriveMessages(ctx context.Context) {
	registered := e.redrivers.registered()
	for _, name := range slices.Sorted(maps.Keys(registered)) {
		n, err := registered[name](ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			e.log.LogAttrs(ctx, slog.LevelError, "idempotent consumer: redelivering retried messages failed",
				slog.String("consumer", name), slog.String("error", err.Error()))
		case n > 0:
			e.log.LogAttrs(ctx, slog.LevelInfo, "idempotent consumer: retried messages redelivered",
				slog.String("consumer", name), slog.Int("delivered", n))
		}
	}
}
