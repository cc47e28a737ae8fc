// Package idem is what a service needs of the idempotency runtime: an
// Executor that runs the generated operations on PostgreSQL, its Config,
// the ScopeFunc that names the trusted tenant of a request, the Rejection a
// business method returns to refuse, and the problem types, sentinel
// errors, events and maintenance around them.
//
// A service migrates the idempotency tables (Migrate, or the generated
// migrations), builds one Executor and hands it to the generated Register
// or Routes:
//
//	if err := idem.Migrate(ctx, pool, "idempotency"); err != nil { … }
//	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: "idempotency", Logger: log})
//	if err != nil { … }
//	err = shop.Register(mux, exec, shop.Service{}, tenantOf)
//
// and starts maintenance, which applies retention (records to tombstones,
// tombstones and natural keys past their lifetime deleted) every minute:
//
//	go exec.Maintain(ctx, idem.MaintainOptions{})
//
// Each operation runs in one transaction that takes the idempotency key
// (Protocol: an advisory lock on PostgreSQL, a claim row elsewhere),
// claims the entity's natural key when the contract declares one, runs the
// business method and stores its response. A retry replays the stored
// response; the same key with a different request is a 422; a duplicate
// while the first request runs waits for it or gets a 409 (DESIGN.md
// section 3, docs/problems.md).
//
// Generated code uses runtime/idemimpl besides this package; services do
// not. This package depends on the standard library, pgx and the runtime's
// own packages; it must not import the generator, the spec packages or any
// test helper.
package idem
