// Package sqlcdb holds the store's queries as sqlc v1.31.1 compiles them
// from runtime/pgstore/schema and runtime/pgstore/queries (see sqlc.yaml
// there). Every file but this one is generated; pgstore sends the SQL
// constants through its own pipelined batches.
package sqlcdb
