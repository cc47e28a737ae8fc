// Package pgcluster starts a throwaway PostgreSQL cluster with the
// machine's initdb and postgres binaries: in a temporary directory, on a
// Unix socket (and a loopback TCP port only when asked), stopped when the
// process that started it dies and removed by Stop or by the next Start
// after a crash.
//
// It is for demos and tests on a machine without a running server (the
// example service uses it when DATABASE_URL is unset; runtime/pgtest
// builds its per-test databases on it). StartWith adds a TCP port and
// server settings, StartStandby a streaming replica made with
// pg_basebackup, and Crash and Promote fail over from one to the other
// (the example's failover test). It imports no testing code, so a
// program may link it. It must not import the generator or the spec
// packages.
package pgcluster
