// Package bookings is the hand-written half of a small hotel service used
// to test idemgen on a second domain: the business methods of the
// idempotent operations of ../specs/bookings.yaml on PostgreSQL tables
// (service.go, schema.sql) and the fixture its generated contract tests
// call (contract_fixture_test.go). The generated half is produced by
// generator's TestBookingsContract into a temporary module, next to these
// files; nothing here is built by go build ./... of the repository.
//
// It imports the idemgen runtime and pgx, never the generator.
package bookings
