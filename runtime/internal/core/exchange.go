package core

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// exchange sends b on conn and reads its results with read, in one round
// trip, then closes them. It returns read's error, or else the one Close
// reports (a failure read did not reach, or a broken connection).
func exchange(ctx context.Context, conn *pgx.Conn, b *pgx.Batch, read func(pgx.BatchResults) error) error {
	br := conn.SendBatch(ctx, b)
	err := read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}
