package main

//go:generate go run github.com/idemgen/idemgen/cmd/idemgen generate --config idemgen.yaml
