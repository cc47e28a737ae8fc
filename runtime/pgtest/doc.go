// Package pgtest gives tests a PostgreSQL of their own: a fresh schema or
// database per test on the server named by DATABASE_URL or, when that is
// unset, on a throwaway cluster (runtime/pgcluster) started with the machine's
// initdb and postgres binaries and removed when the tests end.
//
// It is a test helper of the runtime. It must not import the generator or
// the spec packages.
package pgtest
