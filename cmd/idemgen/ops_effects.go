package main

import "github.com/spf13/cobra"

// addOpsEffectCommands adds the support library's commands to ops.
func addOpsEffectCommands(ops *cobra.Command) {
	ops.AddCommand(newOpsListCommand(), newOpsShowCommand(), newOpsResolveCommand(), newOpsRetryCommand(),
		newOpsResumeCommand(), newOpsAuditCommand(), newOpsServeCommand(), newOpsMessagesCommand(), newOpsRetryMessageCommand())
}
