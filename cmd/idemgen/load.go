package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/spec"
)

// loadSpec loads one spec file with opts. When it is unusable it prints
// every positioned reason on its own line to stderr and returns nil.
func loadSpec(ctx context.Context, path string, opts spec.LoadOptions, stderr io.Writer) *spec.Document {
	doc, err := spec.Load(ctx, path, opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil
	}
	return doc
}

// overlayUsage is the help text of the --overlay flag.
const overlayUsage = "an OpenAPI Overlay file that annotates the spec; repeat to apply several in order"

// addRefFlags adds to cmd the flags that widen what a spec's $refs may
// read, --allow-remote-refs and --ref-root, setting opts.
func addRefFlags(cmd *cobra.Command, opts *spec.LoadOptions) {
	fs := cmd.Flags()
	fs.BoolVar(&opts.AllowRemoteRefs, "allow-remote-refs", false, "let $refs name http and https URLs (each fetched within 10s and 16 MiB); without it no connection is made")
	fs.StringVar(&opts.RefRoot, "ref-root", "", "the directory files named by $refs must be in (default: the spec's directory)")
}
