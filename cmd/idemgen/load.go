package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/spec"
)

// loadFlags are the flags of every command that loads specs: the overlays
// to apply, what an overlay action that matches nothing is, and what the
// spec's $refs may read.
type loadFlags struct {
	overlays        []string
	unmatched       string
	allowRemoteRefs bool
	allowRefHosts   []string
	refRoot         string
}

// register adds the load flags to cmd.
func (f *loadFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringArrayVar(&f.overlays, "overlay", nil, "an OpenAPI Overlay (1.0 or 1.1) file that annotates the spec; repeat to apply several in order")
	fs.StringVar(&f.unmatched, "overlay-unmatched", string(spec.UnmatchedError), "an overlay action whose target matches nothing is an error or a warn(ing)")
	fs.BoolVar(&f.allowRemoteRefs, "allow-remote-refs", false, "let $refs name http and https URLs (each fetched within 10s and 16 MiB, from public addresses only); without it no connection is made")
	fs.StringArrayVar(&f.allowRefHosts, "allow-remote-ref-host", nil, "with --allow-remote-refs, let $refs reach this host although it has a loopback, link-local or private address; repeat for several")
	fs.StringVar(&f.refRoot, "ref-root", "", "the directory files named by $refs must be in (default: the spec's directory)")
}

// options returns the spec.LoadOptions the flags ask for; an unknown
// --overlay-unmatched value, or --allow-remote-ref-host without
// --allow-remote-refs, is a usage error (exit 2).
func (f *loadFlags) options() (spec.LoadOptions, error) {
	u, err := spec.ParseUnmatched(f.unmatched)
	if err != nil {
		return spec.LoadOptions{}, err
	}
	if len(f.allowRefHosts) > 0 && !f.allowRemoteRefs {
		return spec.LoadOptions{}, errors.New("--allow-remote-ref-host names a host remote references may reach: it needs --allow-remote-refs")
	}
	return spec.LoadOptions{Overlays: f.overlays, Unmatched: u, AllowRemoteRefs: f.allowRemoteRefs, AllowRemoteRefHosts: f.allowRefHosts, RefRoot: f.refRoot}, nil
}

// loadSpec loads one spec file with the overlays applied. When it is
// unusable it prints every positioned reason on its own line to stderr and
// returns nil. Overlay warnings go to stderr too, one a line.
func loadSpec(ctx context.Context, path string, opts spec.LoadOptions, stderr io.Writer) *spec.Document {
	doc, err := spec.Load(ctx, path, opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil
	}
	for _, d := range spec.WarningDiagnostics(doc) {
		fmt.Fprintln(stderr, loadLine(d))
	}
	return doc
}

// loadLine words a reason a spec is unusable, or an overlay warning, as
// the loader's errors read on stderr: file:line:col: path: message, with
// "warning: " after the position for a warning.
func loadLine(d spec.Diagnostic) string {
	if d.Severity == spec.SeverityWarning {
		return d.Pos.String() + ": warning: " + (&spec.Error{Path: d.Path, Msg: d.Message}).Error()
	}
	return (&spec.Error{Pos: d.Pos, Path: d.Path, Msg: d.Message}).Error()
}
