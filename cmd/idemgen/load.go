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
	doc, err := loadDocument(ctx, path, overlays)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil
	}
	return doc
}

// loadDocument loads one spec file with the overlays applied; the error,
// when not nil, says why it is unusable.
func loadDocument(ctx context.Context, path string, overlays []string) (*spec.Document, error) {
	return spec.Load(ctx, path, spec.LoadOptions{Overlays: overlays})
}

// overlayUsage is the help text of the --overlay flag.
const overlayUsage = "an OpenAPI Overlay file that annotates the spec; repeat to apply several in order"
