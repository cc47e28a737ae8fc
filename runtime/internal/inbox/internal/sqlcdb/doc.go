// Package sqlcdb holds the inbox's queries as sqlc v1.31.1 compiles them
// from runtime/schema/steps and runtime/internal/inbox/queries (see
// sqlc.yaml there). Every file but this one is generated; the inbox sends
// them through a tables.Schema connection, which names the tables in the
// service's schema.
package sqlcdb
