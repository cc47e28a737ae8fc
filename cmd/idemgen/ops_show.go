package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

func newOpsShowCommand() *cobra.Command {
	var f opsFlags
	cmd := &cobra.Command{
		Use:   "show <operation-id>",
		Short: "Show one operation with its progress, its effects, their attempt history and support actions",
		Long: "show prints an operation's record (scope, key hash, state, stored status, times); for one in progress after a " +
			"recovery point, or halted at one (a phased operation), where it stands: its last recovery point, its lease (live " +
			"until, ran out at, or halted for a person), its attempts and who resumed it; support's actions on it; then each of " +
			"its effects with its lease, attempt history and support actions. An operation without effects (such as a stored " +
			"409) shows its record alone; one whose record was swept shows its effects.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer s.pool.Close()
			op, err := s.ops.Operation(ctx, args[0])
			if err != nil {
				return s.fail(ctx, "show", err)
			}
			if op.State != idemops.OperationSwept {
				s.noteUnhashed(cmd.ErrOrStderr(), f.showKeys)
			}
			if f.format == "json" {
				return writeJSON(cmd.OutOrStdout(), newJSONOperationDetail(op))
			}
			return printOperation(cmd.OutOrStdout(), op, f.showKeys)
		},
	}
	f.register(cmd)
	f.registerShowKeys(cmd)
	return cmd
}

// printOperation prints op for people.
func printOperation(w io.Writer, op *idemops.Operation, showKeys bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	state := string(op.State)
	if op.State == idemops.OperationSwept {
		state += " (the record is deleted; a retry with its key would run as a new operation)"
	}
	effects := effectCount(op.EffectCount, op.EffectsWaiting)
	if op.EffectCount == 0 {
		effects = "none"
	}
	fmt.Fprintf(tw, "operation\t%s\nname\t%s\nscope\t%s\nkey hash\t%s\n", op.ID, orDash(op.Name), esc(op.Scope), orDash(op.KeyHash))
	if showKeys {
		fmt.Fprintf(tw, "key\t%s\n", orDash(op.Key))
	}
	decided := "completed"
	if op.State == idemops.OperationRequiresRecovery {
		decided = "halted"
	}
	fmt.Fprintf(tw, "state\t%s\nstatus\t%s\ncreated\t%s\n%s\t%s\nexpires\t%s\neffects\t%s\n", state, status(op.Status),
		utc(op.CreatedAt), decided, utc(op.CompletedAt), utc(op.ExpiresAt), effects)
	if p := op.Progress; p != nil {
		fmt.Fprintf(tw, "recovery point\t%s\nlease\t%s\nattempts\t%d\n", esc(p.RecoveryPoint), progressLease(p), p.Attempts)
		if p.ResumedBy != "" {
			fmt.Fprintf(tw, "resumed by\t%s\n", esc(p.ResumedBy))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r := op.Request; r != nil {
		printRequest(w, r)
	}
	if len(op.Audit) > 0 {
		fmt.Fprintln(w)
	}
	for _, a := range op.Audit {
		fmt.Fprintf(w, "support #%d at %s by %s: %s -> %s: %s\n", a.ID, utc(a.At), esc(a.Actor), a.From, a.To, esc(a.Reason))
	}
	for i := range op.Effects {
		e := &op.Effects[i]
		fmt.Fprintf(w, "\neffect %s (%s, on unknown: %s): %s after %d attempts", esc(e.Key), esc(e.Name), esc(e.OnUnknown), e.State, e.Attempts)
		if l := lease(e); l != "" {
			fmt.Fprintf(w, "; %s", l)
		}
		if e.LastError != "" {
			fmt.Fprintf(w, "; last error: %s", esc(e.LastError))
		}
		fmt.Fprintln(w)
		if e.Payload != "" {
			fmt.Fprintf(w, "  payload: %s\n", esc(e.Payload))
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  ATTEMPT\tTOKEN\tWORKER\tKIND\tSTARTED\tFINISHED\tOUTCOME\tERROR")
		for _, a := range e.History {
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Number, a.FencingToken, esc(a.Worker), orDash(a.Kind), utc(a.StartedAt),
				utc(a.FinishedAt), orDash(a.Outcome), orDash(a.Error))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, a := range e.Audit {
			fmt.Fprintf(w, "  support #%d at %s by %s: %s -> %s: %s\n", a.ID, utc(a.At), esc(a.Actor), a.From, a.To, esc(a.Reason))
		}
	}
	return nil
}

// printRequest prints the request a phased operation keeps, redacted:
// its line, path parameters, query and headers in name order, and body.
func printRequest(w io.Writer, r *idemops.Request) {
	fmt.Fprintf(w, "\nrequest: %s %s\n", esc(r.Method), esc(r.Route))
	for _, name := range slices.Sorted(maps.Keys(r.PathParams)) {
		fmt.Fprintf(w, "  path %s: %s\n", esc(name), esc(r.PathParams[name]))
	}
	for _, name := range slices.Sorted(maps.Keys(r.Query)) {
		fmt.Fprintf(w, "  query %s: %s\n", esc(name), esc(strings.Join(r.Query[name], ", ")))
	}
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		fmt.Fprintf(w, "  %s: %s\n", esc(name), esc(strings.Join(r.Header[name], ", ")))
	}
	if r.Body != "" {
		fmt.Fprintf(w, "  body: %s\n", esc(r.Body))
	}
}

// progressLease describes the lease of an operation in progress after a
// recovery point, or halted at one.
func progressLease(p *idemops.Progress) string {
	switch p.Lease {
	case idemops.LeaseLive:
		return "live until " + utc(p.LeaseUntil)
	case idemops.LeaseExpired:
		return "ran out at " + utc(p.LeaseUntil) + ": the next retry or the completer takes it over"
	}
	return "none: halted for a person (ops resume, or ops resolve --as completed|failed)"
}
