package main

import "github.com/spf13/cobra"

// addOpsEffectCommands adds the effect support commands to ops.
func addOpsEffectCommands(ops *cobra.Command) {
	ops.AddCommand(newOpsListCommand(), newOpsShowCommand(), newOpsResolveCommand(), newOpsRetryCommand())
}
