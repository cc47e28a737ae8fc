package main

import "github.com/spf13/cobra"

// newOpsCommand is the support commands' parent: they read and change the
// runtime's tables in the database at DATABASE_URL.
func newOpsCommand() *cobra.Command {
	ops := &cobra.Command{
		Use:   "ops",
		Short: "Support: inspect operations and their effects, resolve effects that wait for a person",
		Long: "idemgen ops works on the runtime's tables in the database at DATABASE_URL (--schema names their schema). " +
			"list and show read; resolve and retry change an effect in requires_recovery or dead, with a reason and an actor " +
			"written to the audit table in the same transaction.",
	}
	addOpsEffectCommands(ops)
	return ops
}
