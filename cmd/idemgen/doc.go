// Command idemgen is the command-line face of idemgen: it checks the
// x-idempotency contracts of OpenAPI documents, explains them for
// reviewers, generates the code that enforces them, applies retention to a
// service's idempotency tables from cron (ops sweep) and prints its
// version.
//
// This package is thin: it parses flags with cobra, calls the spec and
// spec/explain packages and maps the outcome to an exit code (0 ok,
// 1 findings, 2 unusable input, 3 internal error). Only main calls
// os.Exit. It must not hold logic that a library user would need; that
// belongs in spec, spec/explain or the generator.
package main
