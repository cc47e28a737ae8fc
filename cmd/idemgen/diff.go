package main

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/spec"
	"github.com/idemgen/idemgen/spec/diff"
	"github.com/spf13/cobra"
)

// newDiffCommand builds idemgen diff.
func newDiffCommand() *cobra.Command {
	var (
		format string
		failOn string
		load   loadFlags
	)
	cmd := &cobra.Command{
		Use:   "diff BASE HEAD",
		Short: "Classify the x-idempotency contract changes between two versions of a spec",
		Long: `diff compares the merged x-idempotency contracts of two versions of an
OpenAPI document, operation by operation, and classifies every change as
breaking, risky or safe by what it does to a retry already in flight
(docs/diff.md). Each side is a file, or REV:path for the file at a git
revision, read with git from inside the repository (HEAD~1:openapi.yaml,
origin/main:api/openapi.yaml); its relative $refs are read from the same
revision. --overlay applies to both sides.

Exit status: 0 when no finding reaches --fail-on (or it is not given), 1
when one does, 2 when a side is unusable (unreadable, invalid YAML or
OpenAPI, a contract that does not decode, an unknown revision).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := diff.ParseFormat(format)
			if err != nil {
				return err
			}
			threshold := diff.Level(-1)
			if failOn != "" {
				if threshold, err = diff.ParseLevel(failOn); err != nil {
					return err
				}
			}
			loadOpts, err := load.options()
			if err != nil {
				return err
			}
			var docs [2]*spec.Document
			var sides [2]*side
			var problems []diff.Problem
			unusable := false
			for i, arg := range args {
				name := [2]string{"base", "head"}[i]
				s, err := openSide(cmd.Context(), arg)
				if err != nil {
					unusable = true
					if f == diff.FormatText {
						fmt.Fprintf(cmd.ErrOrStderr(), "%s\n", err)
					}
					for _, d := range spec.UnusableDiagnostics(err, arg) {
						problems = append(problems, diff.Problem{Side: name, Diagnostic: d})
					}
					continue
				}
				defer s.close()
				sides[i] = s
				doc, err := spec.Load(cmd.Context(), s.file, loadOpts)
				var diags []spec.Diagnostic
				if err != nil {
					unusable = true
					diags = spec.UnusableDiagnostics(err, s.file)
				} else {
					docs[i] = doc
					diags = spec.WarningDiagnostics(doc)
				}
				for _, d := range diags {
					// Text shows each on stderr, as the loader words it;
					// the other formats carry them in the report.
					if f == diff.FormatText {
						fmt.Fprintln(cmd.ErrOrStderr(), s.rewrite(loadLine(d)))
					}
					d.Pos.File = s.name(d.Pos.File, f == diff.FormatGitHub)
					d.Message = s.rewrite(d.Message)
					problems = append(problems, diff.Problem{Side: name, Diagnostic: d})
				}
			}
			if unusable {
				if f != diff.FormatText {
					report := diff.Report{Base: args[0], Head: args[1], Problems: problems}
					if err := diff.Write(cmd.OutOrStdout(), f, report); err != nil {
						return &exitError{code: exitInternal, err: fmt.Errorf("write report: %w", err)}
					}
				}
				return &exitError{code: exitUnusable}
			}
			findings := diff.Compare(docs[0], docs[1])
			for i := range findings {
				fd := &findings[i]
				fd.Base.File = sides[0].name(fd.Base.File, f == diff.FormatGitHub)
				fd.Head.File = sides[1].name(fd.Head.File, f == diff.FormatGitHub)
			}
			report := diff.Report{Base: args[0], Head: args[1], Findings: findings, Problems: problems}
			if err := diff.Write(cmd.OutOrStdout(), f, report); err != nil {
				return &exitError{code: exitInternal, err: fmt.Errorf("write report: %w", err)}
			}
			if failOn != "" && diff.Reaches(findings, threshold) {
				return &exitError{code: exitFindings}
			}
			return nil
		},
	}
	names := make([]string, len(diff.Formats))
	for i, f := range diff.Formats {
		names[i] = string(f)
	}
	cmd.Flags().StringVar(&format, "format", string(diff.FormatText), "output format: "+strings.Join(names, ", "))
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 on changes of this level or worse: breaking, risky or safe (or ERR, WARN, INFO)")
	load.register(cmd) // the overlays apply to both sides
	return cmd
}
