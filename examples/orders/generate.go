package main

// go generate runs idemgen as the tool go.mod names (added with
// go get -tool github.com/idemgen/idemgen/cmd/idemgen), at the version the
// module requires; in this repository that is the repository's own.
//
//go:generate go tool idemgen generate --config idemgen.yaml
