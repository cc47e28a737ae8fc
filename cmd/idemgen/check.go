package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/spec"
)

// newCheckCommand builds idemgen check.
func newCheckCommand() *cobra.Command {
	var (
		format           string
		failOn           string
		requireMutations bool
		load             loadFlags
	)
	cmd := &cobra.Command{
		Use:   "check SPEC...",
		Short: "Check the x-idempotency contracts of OpenAPI documents",
		Long: `check loads each OpenAPI document, reports its defects, runs the lint
rules (docs/rules.md) on every x-idempotency contract, and reports what
generate would refuse to generate: the same judgement generate and
explain use, so check passes exactly when generate succeeds.

Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 when a
spec is unusable (unreadable, invalid YAML or OpenAPI, a contract that does
not decode). The text format prints why a spec is unusable on stderr; json
and github report each reason as a diagnostic of rule ` + spec.RuleUnusable + `.`,
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
			loadOpts, err := load.options()
			if err != nil {
				return err
			}
			opts := spec.CheckOptions{RequireMutations: requireMutations}
			var diags []spec.Diagnostic
			unusable := false
			for _, path := range args {
				// Overlay warnings are diagnostics of spec.Check here, in
				// every format, rather than lines on stderr.
				doc, err := spec.Load(cmd.Context(), path, loadOpts)
				if err != nil {
					// Text goes to stderr as generate and explain print it;
					// the other formats carry it to their readers.
					unusable = true
					if f == spec.FormatText {
						fmt.Fprintln(cmd.ErrOrStderr(), err)
					} else {
						diags = append(diags, spec.UnusableDiagnostics(err, path)...)
					}
					continue
				}
				diags = append(diags, generator.Judge(doc, opts).Diagnostics...)
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
	load.register(cmd)
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
