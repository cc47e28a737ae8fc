// Package shop is the example service's order logic: the business methods
// of the idempotent operations (written by hand, in service.go) and the
// code idemgen generates from ../openapi.yaml (the files whose names start
// with idemgen and openapi_).
package shop
