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
		load       loadFlags
		check      bool
		opts       generator.Options
		migrations string
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
			cfg := &generator.Config{}
			if configPath != "" {
				loaded, err := generator.LoadConfig(configPath)
				if err != nil {
					return &exitError{code: exitUnusable, err: err}
				}
				cfg = loaded
				overrideOptions(cmd, &cfg.Options, opts, migrations)
			} else {
				opts.Migrations = generator.MigrationFormat(migrations)
				root, err := commonRoot(&opts)
				if err != nil {
					return &exitError{code: exitUnusable, err: err}
				}
				cfg.Root, cfg.Options = root, opts
			}
			if cmd.Flags().Changed("spec") || configPath == "" {
				cfg.Specs = flagPaths(specs, configPath != "")
			}
			if cmd.Flags().Changed("overlay") || configPath == "" {
				cfg.Overlays = flagPaths(load.overlays, configPath != "")
			}
			loadOpts, err := load.options()
			if err != nil {
				return &exitError{code: exitUnusable, err: err}
			}
			cfg.Load = loadOpts
			res, err := generator.Run(cmd.Context(), cfg, check)
			if res != nil {
				for _, w := range res.Warnings {
					fmt.Fprintln(cmd.ErrOrStderr(), loadLine(w))
				}
			}
			var verdict *generator.VerdictError
			var load *generator.LoadError
			switch {
			case errors.As(err, &load):
				fmt.Fprintln(cmd.ErrOrStderr(), load.Err)
				return &exitError{code: exitUnusable}
			case errors.As(err, &verdict):
				if err := spec.WriteReport(cmd.ErrOrStderr(), spec.FormatText, verdict.Diagnostics); err != nil {
					return err
				}
				return &exitError{code: exitUnusable, err: errors.New("the contracts cannot be generated as they are (see idemgen check); nothing was generated")}
			case err != nil:
				return &exitError{code: exitUnusable, err: err}
			case res.Diff != "":
				fmt.Fprint(cmd.OutOrStdout(), res.Diff)
				return &exitError{code: exitFindings, err: errors.New("generated files are stale: run idemgen generate (go generate ./...) and commit the result")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&configPath, "config", "", "an idemgen.yaml with the options below; paths in it are relative to it")
	f.StringArrayVar(&specs, "spec", nil, "an OpenAPI document to generate from")
	f.StringVar(&opts.GoDir, "out", ".", "the directory of the generated Go files")
	f.StringVar(&opts.Package, "package", "", "the Go package name of the generated code")
	f.StringVar(&opts.Schema, "schema", "", "the database schema of the idempotency tables (default: the search_path)")
	f.StringVar(&migrations, "migrations", "", "emit migrations in this format: goose, golang-migrate or plain")
	f.StringVar(&opts.MigrationsDir, "migrations-dir", "migrations", "the directory of the migrations")
	f.StringVar(&opts.SQLCDir, "sqlc", "", "emit sqlc.yaml and the support queries into this directory")
	f.BoolVar(&opts.Tests, "tests", false, "emit the contract tests")
	f.BoolVar(&check, "check", false, "write nothing; exit 1 with a diff when the generated files are stale")
	// Golden tests fix the recorded version so that their files do not
	// change with the build; users have no reason to.
	f.StringVar(&opts.Version, "generator-version", "", "record this generator version instead of the build's")
	_ = f.MarkHidden("generator-version") // the flag exists: no error
	load.register(cmd)
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
	if set("generator-version") {
		cfg.Version = flags.Version
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

// flagPaths returns spec or overlay paths given as flags, which are
// relative to the working directory: made absolute when they override a
// configuration, whose paths are relative to its own directory.
func flagPaths(paths []string, overridesConfig bool) []string {
	if !overridesConfig {
		return paths
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			out[i] = abs
		} else {
			out[i] = p
		}
	}
	return out
}
