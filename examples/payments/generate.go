package main

// go generate runs idemgen as the tool go.mod names, at the version the
// module requires; in this repository that is the repository's own.
//
//go:generate go tool idemgen generate --config idemgen.yaml
