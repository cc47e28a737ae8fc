// Package tables names the runtime's tables in a schema. Every statement
// of the runtime (the store's, the effect worker's, support's) is written
// with the unqualified table names sqlc compiles; Qualify rewrites them for
// the schema a service configured, in one place.
//
// It is a leaf: the standard library and pgx's identifier quoting only.
package tables
