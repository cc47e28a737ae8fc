package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

func newOpsAuditCommand() *cobra.Command {
	var f opsFlags
	var filter idemops.AuditFilter
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "List support's actions (resolve, retry) with their actors and reasons, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer s.pool.Close()
			entries, err := s.ops.ListAudit(ctx, filter)
			if err != nil {
				return opsError("audit", err)
			}
			out := cmd.OutOrStdout()
			if f.format == "json" {
				list := []jsonAudit{}
				for i := range entries {
					list = append(list, newJSONAudit(&entries[i], true))
				}
				return writeJSON(out, list)
			}
			if len(entries) == 0 {
				_, err := fmt.Fprintln(out, "no support actions match")
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tAT\tACTOR\tEFFECT KEY\tFROM\tTO\tREASON")
			for _, a := range entries {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, utc(a.At), a.Actor, orDash(a.EffectKey), a.From, a.To, a.Reason)
			}
			return tw.Flush()
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&filter.Scope, "scope", "", "only actions in this scope")
	fl.StringVar(&filter.OperationID, "operation-id", "", "only actions on this operation's effects")
	fl.StringVar(&filter.Actor, "actor", "", "only this actor's actions")
	fl.IntVar(&filter.Limit, "limit", idemops.DefaultLimit, "at most this many actions, newest first")
	return cmd
}
