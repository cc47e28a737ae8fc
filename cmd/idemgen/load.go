package main

import (
	"context"
	"fmt"
	"io"

	"github.com/idemgen/idemgen/spec"
)

// loadSpec loads one spec file with the overlays applied. When it is
// unusable it prints every positioned reason on its own line to stderr and
// returns nil.
func loadSpec(ctx context.Context, path string, overlays []string, stderr io.Writer) *spec.Document {
	doc, err := spec.Load(ctx, path, spec.LoadOptions{Overlays: overlays})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil
	}
	return doc
}

// overlayUsage is the help text of the --overlay flag.
const overlayUsage = "an OpenAPI Overlay file that annotates the spec; repeat to apply several in order"
