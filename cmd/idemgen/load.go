package main

import (
	"context"
	"fmt"
	"io"

	"github.com/idemgen/idemgen/spec"
)

// loadSpec loads one spec file. When it is unusable it prints every
// positioned reason on its own line to stderr and returns nil.
func loadSpec(ctx context.Context, path string, stderr io.Writer) *spec.Document {
	doc, err := spec.Load(ctx, path, spec.LoadOptions{})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil
	}
	return doc
}
