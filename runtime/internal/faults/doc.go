// Package faults holds the executor's fault-injection points for the
// runtime's own tests: the points (Point), the hooks a test sets on them
// (Hooks), the hooks tests build (Hold, FailFirst, Chain), and Deadline, a
// request context whose deadline passes when the test says. A hook may
// block, to hold a request mid-transaction, or fail: before the commit
// that rolls the transaction back; after it, the HTTP adapter drops the
// response, as if it were lost on the way to the client.
//
// It is internal so that no service can reach it: production executors
// never carry hooks. Tests install them with engine.InstallFaults.
//
// It is a leaf: the standard library only.
package faults
