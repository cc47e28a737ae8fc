package main

import (
	"cmp"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

func newOpsAuditCommand() *cobra.Command {
	var f opsFlags
	var filter idemops.AuditFilter
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "List support's actions (resolve, retry, resume) with their actors and reasons, newest first",
		Long: "audit lists support's actions on effects (resolve, retry) and on operations (resume, resolve), newest first, " +
			"each with what it was on: an effect's key, or an operation's id.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer s.pool.Close()
			effects, err := s.ops.ListAudit(ctx, filter)
			if err != nil {
				return s.fail(ctx, "audit", err)
			}
			operations, err := s.ops.ListOperationAudit(ctx, filter)
			if err != nil {
				return s.fail(ctx, "audit", err)
			}
			list := make([]jsonAudit, 0, len(effects)+len(operations))
			for i := range effects {
				list = append(list, newJSONAudit(&effects[i], true))
			}
			for i := range operations {
				list = append(list, newJSONOperationAudit(&operations[i], true))
			}
			// Newest first across both trails; each is already.
			slices.SortStableFunc(list, func(a, b jsonAudit) int { return b.At.Compare(a.At) })
			list = list[:min(len(list), cmp.Or(filter.Limit, idemops.DefaultLimit))]
			out := cmd.OutOrStdout()
			if f.format == "json" {
				return writeJSON(out, list)
			}
			if len(list) == 0 {
				_, err := fmt.Fprintln(out, "no support actions match")
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tAT\tACTOR\tON\tFROM\tTO\tREASON")
			for _, a := range list {
				on := "effect " + orDash(a.EffectKey)
				if a.On == "operation" {
					on = "operation " + a.OperationID
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, utc(a.At), esc(a.Actor), on, a.From, a.To, esc(a.Reason))
			}
			return tw.Flush()
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&filter.Scope, "scope", "", "only actions in this scope")
	fl.StringVar(&filter.OperationID, "operation-id", "", "only actions on this operation and its effects")
	fl.StringVar(&filter.Actor, "actor", "", "only this actor's actions")
	fl.IntVar(&filter.Limit, "limit", idemops.DefaultLimit, "at most this many actions, newest first")
	return cmd
}
