// Package api is generated from ../openapi.yaml, a spec whose operations
// use every schema keyword the generated decoders check, and an excerpt of
// Stripe's POST /v1/customers. Its tests send a valid and an invalid value
// of each keyword and benchmark the decoders against kin-openapi's request
// validation (docs/benchmarks.md).
package api
