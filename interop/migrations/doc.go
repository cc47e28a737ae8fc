// Package migrations has no code of its own: its tests apply the
// migrations idemgen emits to PostgreSQL with goose's and golang-migrate's
// own libraries, and with schema.Migrate, on a fresh database and over
// the one v0.1.0 released. It is in the interop module so that those
// libraries, and what their modules require (docker, sqlite, lib/pq, cloud
// SDKs), are not requirements of idemgen's module and so of every service
// that imports it.
package migrations
