package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/spec"
	"github.com/idemgen/idemgen/spec/explain"
)

// newExplainCommand builds idemgen explain.
func newExplainCommand() *cobra.Command {
	var load loadFlags
	cmd := &cobra.Command{
		Use:   "explain SPEC",
		Short: "Explain the idempotency contracts of an OpenAPI document in Markdown",
		Long: `explain prints a Markdown document for reviewers: one section per operation
with an x-idempotency contract, saying in plain words what counts as a
retry, what it gets back, for how long, and what happens to each side
effect whose outcome is unknown. It asks the judgement generate uses: an
operation that is not generated (an error of idemgen check on it: a
document defect that blocks it, a rule's error, a refusal of the
generator) is marked so, with the reasons, instead of being described as
working; and while generate refuses the spec, no operation is described
as kept. Below the reasons, a phased contract's mode, lease, steps and
completer are still explained as written, introduced as kept by no code,
so that a reviewer can judge the contract before it is generated.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := load.options()
			if err != nil {
				return err
			}
			doc := loadSpec(cmd.Context(), args[0], opts, cmd.ErrOrStderr())
			if doc == nil {
				return &exitError{code: exitUnusable}
			}
			j := generator.Judge(doc, spec.CheckOptions{})
			verdict := explain.Verdict{Errors: j.Errors(), Operations: j.Unfit}
			if err := explain.Render(cmd.OutOrStdout(), doc, verdict); err != nil {
				return &exitError{code: exitInternal, err: fmt.Errorf("render: %w", err)}
			}
			return nil
		},
	}
	load.register(cmd)
	return cmd
}
