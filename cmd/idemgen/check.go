package main

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
	"github.com/spf13/cobra"
)

// newCheckCommand builds idemgen check.
func newCheckCommand() *cobra.Command {
	var (
		format           string
		failOn           string
		requireMutations bool
		overlays         []string
		loadOpts         spec.LoadOptions
	)
	cmd := &cobra.Command{
		Use:   "check SPEC...",
		Short: "Check the x-idempotency contracts of OpenAPI documents",
		Long: `check loads each OpenAPI document, reports its defects and runs the lint
rules (docs/rules.md) on every x-idempotency contract.

Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 when a
spec is unusable (unreadable, invalid YAML or OpenAPI, a contract that does
not decode).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := spec.ParseFormat(format)
			if err != nil {
				return err
			}
			threshold, err := spec.ParseSeverity(failOn)
			if err != nil {
				return err
			}
			opts := spec.CheckOptions{RequireMutations: requireMutations}
			var diags []spec.Diagnostic
			unusable := false
			for _, path := range args {
				loadOpts.Overlays = overlays
				doc := loadSpec(cmd.Context(), path, loadOpts, cmd.ErrOrStderr())
				if doc == nil {
					unusable = true
					continue
				}
				diags = append(diags, spec.Check(doc, opts)...)
			}
			if err := spec.WriteReport(cmd.OutOrStdout(), f, diags); err != nil {
				return &exitError{code: exitInternal, err: fmt.Errorf("write report: %w", err)}
			}
			switch {
			case unusable:
				return &exitError{code: exitUnusable}
			case reaches(diags, threshold):
				return &exitError{code: exitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", string(spec.FormatText), "output format: text, json or github")
	cmd.Flags().StringVar(&failOn, "fail-on", spec.SeverityError.String(), "exit 1 on findings of this severity or worse: error or warning")
	cmd.Flags().BoolVar(&requireMutations, "require-mutations", false, "report POST, PUT, PATCH and DELETE operations without x-idempotency (IDEM016)")
	cmd.Flags().StringArrayVar(&overlays, "overlay", nil, overlayUsage)
	addRefFlags(cmd, &loadOpts)
	return cmd
}

// reaches reports whether any diagnostic is at least as severe as the
// threshold.
func reaches(diags []spec.Diagnostic, threshold spec.Severity) bool {
	for _, d := range diags {
		if d.Severity >= threshold {
			return true
		}
	}
	return false
}
