package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// supportAction is the result of resolve and retry.
type supportAction struct {
	EffectKey string    `json:"effect_key"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	Actor     string    `json:"actor"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
	AuditID   int64     `json:"audit_id"`
}

func newOpsResolveCommand() *cobra.Command {
	var f opsFlags
	var to string
	var a idemops.Action
	cmd := &cobra.Command{
		Use:   "resolve <effect-key> --to done|failed --reason TEXT --actor NAME",
		Short: "Resolve an effect in requires_recovery or dead to done or failed, with an audit row",
		Long: "resolve records what a person established about an effect the worker could not decide: done (it happened) " +
			"or failed (it did not and will not). Only an effect in requires_recovery or dead can be resolved.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to != "done" && to != "failed" {
				return &exitError{code: exitUnusable, err: fmt.Errorf("--to %q: want done or failed (ops retry runs the effect again)", to)}
			}
			return supportMove(cmd, &f, args[0], a, func(s *opsSession) (idemops.AuditEntry, error) {
				return s.ops.Resolve(cmd.Context(), args[0], idemops.EffectState(to), a)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&to, "to", "", "the state to resolve to: done or failed (required)")
	supportFlags(cmd, &a)
	return cmd
}

func newOpsRetryCommand() *cobra.Command {
	var f opsFlags
	var a idemops.Action
	cmd := &cobra.Command{
		Use:   "retry <effect-key> --reason TEXT --actor NAME",
		Short: "Run an effect in requires_recovery or dead again, with fresh attempts and an audit row",
		Long: "retry makes the effect due now with its attempt count reset; the worker calls the provider again under the same " +
			"effect key, without asking Verify or halting first: the person retrying has decided it is safe.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return supportMove(cmd, &f, args[0], a, func(s *opsSession) (idemops.AuditEntry, error) {
				return s.ops.Retry(cmd.Context(), args[0], a)
			})
		},
	}
	f.register(cmd)
	supportFlags(cmd, &a)
	return cmd
}

func supportFlags(cmd *cobra.Command, a *idemops.Action) {
	cmd.Flags().StringVar(&a.Reason, "reason", "", "why, for the audit table (required)")
	cmd.Flags().StringVar(&a.Actor, "actor", "", "who, for the audit table (required)")
}

// supportMove runs a support action (move) on the effect named by key and
// prints what it did.
func supportMove(cmd *cobra.Command, f *opsFlags, key string, a idemops.Action, move func(*opsSession) (idemops.AuditEntry, error)) error {
	if strings.TrimSpace(a.Reason) == "" || strings.TrimSpace(a.Actor) == "" {
		return &exitError{code: exitUnusable, err: errors.New("a support action needs --reason and --actor: both go to the audit table")}
	}
	s, err := f.connect(cmd.Context())
	if err != nil {
		return err
	}
	defer s.pool.Close()
	entry, err := move(s)
	if err != nil {
		return opsError(cmd.Name(), err)
	}
	act := supportAction{EffectKey: key, From: string(entry.From), To: string(entry.To), Actor: entry.Actor, Reason: entry.Reason,
		At: entry.At, AuditID: entry.ID}
	if f.format == "json" {
		return writeJSON(cmd.OutOrStdout(), act)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "effect %s: %s -> %s (audit #%d, by %s: %s)\n", key, act.From, act.To, act.AuditID, act.Actor, act.Reason)
	return nil
}
