package generator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/idemgen/idemgen/spec"
)

// RunResult is what Run did: the files it generated and, in check mode,
// the unified diff between them and the files on disk ("" when current).
type RunResult struct {
	Files []File
	Diff  string
	// Warnings are the loader's warnings about the specs, such as an
	// overlay action that matched nothing under spec.UnmatchedWarn; they
	// did not stop the run.
	Warnings []spec.Diagnostic
}

// LoadError is Run's error when a spec cannot be loaded; Err carries the
// positioned reasons.
type LoadError struct {
	Path string
	Err  error
}

func (e *LoadError) Error() string { return e.Err.Error() }

func (e *LoadError) Unwrap() error { return e.Err }

// Run does what idemgen generate does: it loads the spec of cfg with its
// overlays, judges it (Judge: a spec or planner error refuses everything,
// as a *VerdictError), emits the judged plan, and then writes every file
// or none under cfg's output root; with check it writes nothing and
// returns the diff instead. Spec and overlay paths are relative to cfg.Dir
// (the working directory when it is ""), output paths to cfg.OutputRoot().
func Run(ctx context.Context, cfg *Config, check bool) (*RunResult, error) {
	switch len(cfg.Specs) {
	case 0:
		return nil, errors.New("no spec: pass --spec FILE or --config idemgen.yaml")
	case 1:
	default:
		return nil, fmt.Errorf("one spec per package (got %d); generate each spec into a package of its own", len(cfg.Specs))
	}
	overlays := make([]string, len(cfg.Overlays))
	for i, o := range cfg.Overlays {
		overlays[i] = cfg.path(o)
	}
	path := cfg.path(cfg.Specs[0])
	doc, err := spec.Load(ctx, path, cfg.loadOptions(overlays))
	if err != nil {
		return nil, &LoadError{Path: path, Err: err}
	}
	out, err := judgeAndGenerate(doc, cfg.Options)
	if err != nil {
		return nil, err
	}
	res := &RunResult{Files: out.Files, Warnings: spec.WarningDiagnostics(doc)}
	root := cfg.OutputRoot()
	if check {
		if res.Diff, err = Check(root, out.Files); err != nil {
			return nil, fmt.Errorf("compare with %s: %w", root, err)
		}
		return res, nil
	}
	return res, Write(root, out.Files)
}

// judgeAndGenerate judges doc once and emits its plan; a judgement with an
// error generates nothing and is a *VerdictError. idemgen check passes
// exactly when this succeeds, since it reports the same judgement.
func judgeAndGenerate(doc *spec.Document, opts Options) (*Output, error) {
	j := Judge(doc, spec.CheckOptions{})
	if errs := j.Errors(); len(errs) > 0 {
		return nil, &VerdictError{Diagnostics: errs}
	}
	return Generate(j.Plan, opts)
}

// path resolves a path of the configuration.
func (c *Config) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, filepath.FromSlash(p))
}

// OutputRoot is the directory the generated paths are relative to: Root,
// or Dir when Root is empty.
func (c *Config) OutputRoot() string {
	switch {
	case c.Root != "":
		return c.Root
	case c.Dir != "":
		return c.Dir
	}
	return "."
}

// loadOptions returns the loader's options of the configuration with the
// given overlays.
func (c *Config) loadOptions(overlays []string) spec.LoadOptions {
	opts := c.Load
	opts.Overlays = overlays
	return opts
}
