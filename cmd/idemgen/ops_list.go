package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

func newOpsListCommand() *cobra.Command {
	var f opsFlags
	var filter idemops.Filter
	var state string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List operations and their effects by state, age, operation, key, scope or operation id",
		Long: "list prints the operations (idempotency records) and the effects that match every filter given, oldest first, " +
			"up to --limit of each: a table of operations, then a table of effects, each left out when nothing matches. " +
			"--key finds the operation a client sent under that key, written either way the client may have sent it: " +
			`bare (abc) or as a Structured Field string ("abc"). --state takes an operation state, an effect state, or ` +
			"failed and requires_recovery, which both have.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opState, effectState := idemops.OperationState(state), idemops.EffectState(state)
			listOps := state == "" || slices.Contains(idemops.OperationStates(), opState)
			listEffects := state == "" || slices.Contains(idemops.EffectStates(), effectState)
			if !listOps && !listEffects {
				return &exitError{code: exitUnusable, err: fmt.Errorf("--state %q: want an operation state (one of %v) or an effect state (one of %v)",
					state, idemops.OperationStates(), idemops.EffectStates())}
			}
			ctx := cmd.Context()
			s, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer s.pool.Close()
			list := jsonList{Operations: []jsonOperation{}, Effects: []jsonEffect{}}
			var ops []idemops.Operation
			var effects []idemops.Effect
			if listOps {
				if ops, err = s.ops.ListOperations(ctx, idemops.OperationFilter{Filter: filter, State: opState}); err != nil {
					return s.fail(ctx, "list", err)
				}
			}
			if listEffects {
				if effects, err = s.ops.ListEffects(ctx, idemops.EffectFilter{Filter: filter, State: effectState}); err != nil {
					return s.fail(ctx, "list", err)
				}
			}
			if len(ops) > 0 || len(effects) > 0 {
				s.noteUnhashed(cmd.ErrOrStderr(), f.showKeys)
			}
			out := cmd.OutOrStdout()
			if f.format == "json" {
				for i := range ops {
					list.Operations = append(list.Operations, newJSONOperation(&ops[i]))
				}
				for i := range effects {
					list.Effects = append(list.Effects, newJSONEffect(&effects[i]))
				}
				return writeJSON(out, list)
			}
			return printList(out, ops, effects, f.showKeys)
		},
	}
	f.register(cmd)
	f.registerShowKeys(cmd)
	fl := cmd.Flags()
	fl.StringVar(&state, "state", "", fmt.Sprintf("only operations in this state (one of %v) and effects in this state (one of %v)",
		idemops.OperationStates(), idemops.EffectStates()))
	fl.StringVar(&filter.Name, "operation", "", "only operations and effects of this operation (the contract's name, known from the effects)")
	fl.StringVar(&filter.Scope, "scope", "", "only this scope")
	fl.StringVar(&filter.OperationID, "operation-id", "", "only this operation and its effects")
	fl.StringVar(&filter.Key, "key", "", `only the operation under this idempotency key, bare or quoted ("abc"), and its effects`)
	fl.DurationVar(&filter.OlderThan, "older-than", 0, "only what was created at least this long ago, such as 1h")
	fl.StringVar(&filter.Link, "link", "", "only the operation whose answer linked this resource (its Location, /orders/42, or its last segments, 42), and its effects")
	fl.IntVar(&filter.Limit, "limit", idemops.DefaultLimit, "at most this many operations and this many effects, oldest first")
	return cmd
}

// printList prints the operations and effects for people; the key column
// is the key hash, or the key with --show-keys.
func printList(w io.Writer, ops []idemops.Operation, effects []idemops.Effect, showKeys bool) error {
	if len(ops) == 0 && len(effects) == 0 {
		_, err := fmt.Fprintln(w, "no operations or effects match")
		return err
	}
	keyColumn := "KEY HASH"
	if showKeys {
		keyColumn = "KEY"
	}
	shown := func(key, hash string) string {
		if showKeys {
			return orDash(key)
		}
		return orDash(hash)
	}
	if len(ops) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "OPERATION ID\tOPERATION\tSCOPE\t%s\tSTATE\tSTATUS\tEFFECTS\tCREATED\n", keyColumn)
		for _, op := range ops {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", op.ID, orDash(op.Name), esc(op.Scope), shown(op.Key, op.KeyHash),
				op.State, status(op.Status), effectCount(op.EffectCount, op.EffectsWaiting), utc(op.CreatedAt))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(effects) > 0 {
		if len(ops) > 0 {
			fmt.Fprintln(w)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "EFFECT KEY\tOPERATION\tSCOPE\t%s\tSTATE\tATTEMPTS\tLAST OUTCOME\tLEASED BY\tCREATED\n", keyColumn)
		for i := range effects {
			e := &effects[i]
			leasedBy := "-"
			if e.State == idemops.EffectRunning {
				leasedBy = orDash(e.LeasedBy) + " until " + utc(e.LeaseUntil)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", esc(e.Key), orDash(e.Operation), esc(e.Scope), shown(e.IdempotencyKey, e.KeyHash),
				e.State, e.Attempts, orDash(e.LastOutcome), leasedBy, utc(e.CreatedAt))
		}
		return tw.Flush()
	}
	return nil
}

// status shows a stored status; - for none.
func status(s int) string {
	if s == 0 {
		return "-"
	}
	return fmt.Sprint(s)
}

// effectCount shows how many effects an operation has and how many of
// them wait for a person.
func effectCount(n, waiting int) string {
	switch {
	case n == 0:
		return "-"
	case waiting == 0:
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d (%d waiting)", n, waiting)
}

// lease describes an effect's lease: who holds it until when, or whose
// lease ran out; "" when none is recorded.
func lease(e *idemops.Effect) string {
	switch {
	case e.LeaseUntil.IsZero():
		return ""
	case e.State == idemops.EffectRunning:
		return fmt.Sprintf("leased by %s until %s", orDash(e.LeasedBy), utc(e.LeaseUntil))
	}
	return fmt.Sprintf("the lease of %s ran out at %s", orDash(e.LeasedBy), utc(e.LeaseUntil))
}
