package main

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
	"github.com/idemgen/idemgen/spec/explain"
	"github.com/spf13/cobra"
)

// newExplainCommand builds idemgen explain.
func newExplainCommand() *cobra.Command {
	var (
		overlays []string
		loadOpts spec.LoadOptions
	)
	cmd := &cobra.Command{
		Use:   "explain SPEC",
		Short: "Explain the idempotency contracts of an OpenAPI document in Markdown",
		Long: `explain prints a Markdown document for reviewers: one section per operation
with an x-idempotency contract, saying in plain words what counts as a
retry, what it gets back, for how long, and what happens to each side
effect whose outcome is unknown.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loadOpts.Overlays = overlays
			doc := loadSpec(cmd.Context(), args[0], loadOpts, cmd.ErrOrStderr())
			if doc == nil {
				return &exitError{code: exitUnusable}
			}
			if err := explain.Render(cmd.OutOrStdout(), doc); err != nil {
				return &exitError{code: exitInternal, err: fmt.Errorf("render: %w", err)}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&overlays, "overlay", nil, overlayUsage)
	addRefFlags(cmd, &loadOpts)
	return cmd
}
