package main

import (
	"bytes"
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
			unusable := false
			for i, arg := range args {
				s, err := openSide(cmd.Context(), arg)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s\n", err)
					unusable = true
					continue
				}
				defer s.close()
				sides[i] = s
				var stderr bytes.Buffer
				docs[i] = loadSpec(cmd.Context(), s.file, loadOpts, &stderr)
				if _, err := cmd.ErrOrStderr().Write([]byte(s.rewrite(stderr.String()))); err != nil {
					return &exitError{code: exitInternal, err: err}
				}
				if docs[i] == nil {
					unusable = true
				}
			}
			if unusable {
				return &exitError{code: exitUnusable}
			}
			findings := diff.Compare(docs[0], docs[1])
			for i := range findings {
				fd := &findings[i]
				fd.Base.File = sides[0].name(fd.Base.File, f == diff.FormatGitHub)
				fd.Head.File = sides[1].name(fd.Head.File, f == diff.FormatGitHub)
			}
			report := diff.Report{Base: args[0], Head: args[1], Findings: findings}
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
