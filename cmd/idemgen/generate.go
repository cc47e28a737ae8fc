package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/spec"
)

// newGenerateCommand builds idemgen generate.
func newGenerateCommand() *cobra.Command {
	var (
		configPath string
		specs      []string
		overlays   []string
		check      bool
		opts       generator.Options
		migrations string
		loadOpts   spec.LoadOptions
	)
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate handlers, fingerprints, migrations, sqlc queries and contract tests",
		Long: `generate turns the x-idempotency contracts of an OpenAPI document into Go
code, SQL migrations, sqlc query files and contract tests. Options come
from an idemgen.yaml (--config) or from flags; flags override the file.

It writes every file or none. With --check it writes nothing and exits 1
with a unified diff when the files on disk are not what generate would
write (for CI).

Exit status: 0 ok, 1 drift (--check), 2 unusable input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root := "."
			if configPath != "" {
				cfg, err := generator.LoadConfig(configPath)
				if err != nil {
					return &exitError{code: exitUnusable, err: err}
				}
				root = cfg.Dir
				for i, s := range cfg.Specs {
					cfg.Specs[i] = filepath.Join(cfg.Dir, filepath.FromSlash(s))
				}
				for i, s := range cfg.Overlays {
					cfg.Overlays[i] = filepath.Join(cfg.Dir, filepath.FromSlash(s))
				}
				overrideOptions(cmd, &cfg.Options, opts, migrations)
				opts = cfg.Options
				if !cmd.Flags().Changed("spec") {
					specs = cfg.Specs
				}
				if !cmd.Flags().Changed("overlay") {
					overlays = cfg.Overlays
				}
			} else {
				opts.Migrations = generator.MigrationFormat(migrations)
				var err error
				if root, err = commonRoot(&opts); err != nil {
					return &exitError{code: exitUnusable, err: err}
				}
			}
			if len(specs) == 0 {
				return &exitError{code: exitUnusable, err: errors.New("no spec: pass --spec FILE or --config idemgen.yaml")}
			}
			var docs []*spec.Document
			for _, p := range specs {
				loadOpts.Overlays = overlays
				doc := loadSpec(cmd.Context(), p, loadOpts, cmd.ErrOrStderr())
				if doc == nil {
					return &exitError{code: exitUnusable}
				}
				docs = append(docs, doc)
			}
			if findings := contractErrors(docs); len(findings) > 0 {
				if err := spec.WriteReport(cmd.ErrOrStderr(), spec.FormatText, findings); err != nil {
					return err
				}
				return &exitError{code: exitFindings, err: errors.New("the contracts have errors (see idemgen check); nothing was generated")}
			}
			out, err := generator.Generate(docs, opts)
			if err != nil {
				return &exitError{code: exitUnusable, err: err}
			}
			if err := spec.WriteReport(cmd.ErrOrStderr(), spec.FormatText, out.Deferred); err != nil {
				return err
			}
			if check {
				diff, err := generator.Check(root, out.Files)
				if err != nil {
					return &exitError{code: exitInternal, err: err}
				}
				if diff != "" {
					fmt.Fprint(cmd.OutOrStdout(), diff)
					return &exitError{code: exitFindings, err: errors.New("generated files are stale: run idemgen generate (go generate ./...) and commit the result")}
				}
				return nil
			}
			if err := generator.Write(root, out.Files); err != nil {
				return &exitError{code: exitUnusable, err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&configPath, "config", "", "an idemgen.yaml with the options below; paths in it are relative to it")
	f.StringArrayVar(&specs, "spec", nil, "an OpenAPI document to generate from")
	f.StringArrayVar(&overlays, "overlay", nil, overlayUsage)
	addRefFlags(cmd, &loadOpts)
	f.StringVar(&opts.GoDir, "out", ".", "the directory of the generated Go files")
	f.StringVar(&opts.Package, "package", "", "the Go package name of the generated code")
	f.StringVar(&opts.Schema, "schema", "", "the database schema of the idempotency tables (default: the search_path)")
	f.StringVar(&migrations, "migrations", "", "emit migrations in this format: goose, golang-migrate or plain")
	f.StringVar(&opts.MigrationsDir, "migrations-dir", "migrations", "the directory of the migrations")
	f.StringVar(&opts.SQLCDir, "sqlc", "", "emit sqlc.yaml and the support queries into this directory")
	f.BoolVar(&opts.Tests, "tests", false, "emit the contract tests")
	f.BoolVar(&check, "check", false, "write nothing; exit 1 with a diff when the generated files are stale")
	return cmd
}

// overrideOptions copies the flags the user set over the configuration.
func overrideOptions(cmd *cobra.Command, cfg *generator.Options, flags generator.Options, migrations string) {
	set := cmd.Flags().Changed
	if set("out") {
		cfg.GoDir = flags.GoDir
	}
	if set("package") {
		cfg.Package = flags.Package
	}
	if set("schema") {
		cfg.Schema = flags.Schema
	}
	if set("migrations") {
		cfg.Migrations = generator.MigrationFormat(migrations)
	}
	if set("migrations-dir") {
		cfg.MigrationsDir = flags.MigrationsDir
	}
	if set("sqlc") {
		cfg.SQLCDir = flags.SQLCDir
	}
	if set("tests") {
		cfg.Tests = flags.Tests
	}
}

// commonRoot makes the output directories of opts relative to their
// deepest common ancestor, which it returns: generate writes all its files
// under one root.
func commonRoot(opts *generator.Options) (string, error) {
	dirs := []*string{&opts.GoDir}
	if opts.Migrations != "" {
		dirs = append(dirs, &opts.MigrationsDir)
	}
	if opts.SQLCDir != "" {
		dirs = append(dirs, &opts.SQLCDir)
	}
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		a, err := filepath.Abs(*d)
		if err != nil {
			return "", err
		}
		abs[i] = a
	}
	root := abs[0]
	for _, a := range abs[1:] {
		for !within(a, root) {
			root = filepath.Dir(root)
		}
	}
	for i, d := range dirs {
		rel, err := filepath.Rel(root, abs[i])
		if err != nil {
			return "", err
		}
		*d = filepath.ToSlash(rel)
	}
	return root, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// contractErrors returns the error-level findings of the lint rules. A
// contract with one would generate code that does not keep it. Defects of
// the OpenAPI document itself are not among them: they only keep the
// operations they touch from being generated.
func contractErrors(docs []*spec.Document) []spec.Diagnostic {
	var out []spec.Diagnostic
	for _, doc := range docs {
		for _, d := range spec.Check(doc, spec.CheckOptions{}) {
			if d.Severity == spec.SeverityError && strings.HasPrefix(d.Rule, "IDEM") {
				out = append(out, d)
			}
		}
	}
	return out
}
