package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// The exit codes of idemgen.
const (
	exitOK       = 0
	exitFindings = 1
	exitUnusable = 2
	exitInternal = 3
)

// exitError ends a command with an exit code. A nil err means the command
// already printed what the user needs to see.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// run executes idemgen with the arguments (without the program name) and
// returns the exit code. It never panics: a panic below it is reported as
// an internal error with exit code 3.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "idemgen: internal error: %v\nThis is a bug in idemgen; please report it with the input that caused it.\n", r)
			code = exitInternal
		}
	}()
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	var exit *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit):
		if exit.err != nil {
			fmt.Fprintf(stderr, "idemgen: %v\n", exit.err)
		}
		return exit.code
	default:
		// cobra's own errors: unknown commands and flags, wrong arguments.
		fmt.Fprintf(stderr, "idemgen: %v\nRun 'idemgen help' for usage.\n", err)
		return exitUnusable
	}
}

// newRootCommand builds the idemgen command tree writing to stdout and
// stderr.
func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "idemgen",
		Short:         "Make HTTP operations safely retryable from their OpenAPI contract",
		Long:          "idemgen reads the x-idempotency contracts of an OpenAPI document, checks them, explains them to reviewers and generates the code that enforces them on PostgreSQL.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newCheckCommand(), newDiffCommand(), newExplainCommand(), newGenerateCommand(), newOpsCommand(), newVersionCommand())
	return root
}
