// Package tables names the runtime's tables in a schema. Every statement
// of the runtime (the store's, the effect worker's, support's) is written
// with the unqualified table names sqlc compiles; Qualify rewrites them for
// the schema a service configured, in one place. Schema applies Qualify to
// every statement sent through a connection, for the queries sqlc's
// generated code sends.
//
// It is a leaf: the standard library and pgx's identifier quoting and
// connection interfaces only.
package tables
