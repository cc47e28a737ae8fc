// Package constraints holds a spec whose operations use every schema
// keyword the generated decoders check, and an excerpt of Stripe's spec;
// the generated package api is tested against them (see api's tests) and
// benchmarked in docs/benchmarks.md.
package constraints

//go:generate go run github.com/idemgen/idemgen/cmd/idemgen generate --config idemgen.yaml
