package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/cobra"
)

// auditSQL writes the audit row of a support action on the effect
// ($1, $2), reading the state it moves from off the locked row itself, so
// that the audit table's CHECKs refuse a move out of any state but
// requires_recovery and dead, and a missing actor or reason, whatever the
// caller checked. It returns the row's id and the state moved from.
const auditSQL = `INSERT INTO idempotency_effect_audit (scope, operation_id, seq, actor, reason, from_state, to_state, at)
SELECT o.scope, o.operation_id, o.seq, $3, $4, o.state, $5, $6
FROM idempotency_outbox AS o
WHERE o.operation_id = $1::uuid AND o.seq = $2
RETURNING id, from_state`

// moveSQL moves the effect to $3 (done, failed, or pending to run again
// with fresh attempts), only out of requires_recovery or dead.
const moveSQL = `UPDATE idempotency_outbox
SET state = $3, lease_until = NULL, updated_at = $4,
    available_at = CASE WHEN $3 = 'pending' THEN $4 ELSE available_at END,
    attempts = CASE WHEN $3 = 'pending' THEN 0 ELSE attempts END,
    last_outcome = 'support_' || $3, last_error = NULL
WHERE operation_id = $1::uuid AND seq = $2 AND state IN ('requires_recovery', 'dead')`

// lockEffectSQL locks the effect and reads its state.
const lockEffectSQL = `SELECT state FROM idempotency_outbox WHERE operation_id = $1::uuid AND seq = $2 FOR UPDATE`

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
	var to, reason, actor string
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
			return supportMove(cmd, &f, args[0], to, reason, actor)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&to, "to", "", "the state to resolve to: done or failed (required)")
	supportFlags(cmd, &reason, &actor)
	return cmd
}

func newOpsRetryCommand() *cobra.Command {
	var f opsFlags
	var reason, actor string
	cmd := &cobra.Command{
		Use:   "retry <effect-key> --reason TEXT --actor NAME",
		Short: "Run an effect in requires_recovery or dead again, with fresh attempts and an audit row",
		Long: "retry makes the effect due now with its attempt count reset; the worker calls the provider again under the same " +
			"effect key, without asking Verify or halting first: the person retrying has decided it is safe.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return supportMove(cmd, &f, args[0], "pending", reason, actor)
		},
	}
	f.register(cmd)
	supportFlags(cmd, &reason, &actor)
	return cmd
}

func supportFlags(cmd *cobra.Command, reason, actor *string) {
	cmd.Flags().StringVar(reason, "reason", "", "why, for the audit table (required)")
	cmd.Flags().StringVar(actor, "actor", "", "who, for the audit table (required)")
}

// supportMove moves the effect named by key to state to, writing the audit
// row in the same transaction.
func supportMove(cmd *cobra.Command, f *opsFlags, key, to, reason, actor string) error {
	if strings.TrimSpace(reason) == "" || strings.TrimSpace(actor) == "" {
		return &exitError{code: exitUnusable, err: errors.New("a support action needs --reason and --actor: both go to the audit table")}
	}
	ref, err := parseEffectKey(key)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	conn, err := f.connect(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(ctx) }()
	act := supportAction{EffectKey: key, To: to, Actor: actor, Reason: reason, At: time.Now().UTC().Truncate(time.Microsecond)}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return move(ctx, tx, f, ref, &act) })
	var refused *exitError
	switch {
	case errors.As(err, &refused):
		return err
	case err != nil:
		return &exitError{code: exitUnusable, err: fmt.Errorf("ops: %s: %w", key, err)}
	}
	if f.format == "json" {
		return writeJSON(cmd.OutOrStdout(), act)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "effect %s: %s -> %s (audit #%d, by %s: %s)\n", key, act.From, act.To, act.AuditID, actor, reason)
	return nil
}

// move locks the effect, writes the audit row and moves the state.
func move(ctx context.Context, tx pgx.Tx, f *opsFlags, ref effectRef, act *supportAction) error {
	var state string
	switch err := tx.QueryRow(ctx, f.qualify(lockEffectSQL), ref.operationID, ref.seq).Scan(&state); {
	case errors.Is(err, pgx.ErrNoRows):
		return &exitError{code: exitUnusable, err: fmt.Errorf("ops: no effect %s", act.EffectKey)}
	case err != nil:
		return err
	case state != "requires_recovery" && state != "dead":
		return &exitError{code: exitUnusable, err: fmt.Errorf("ops: effect %s is %s: only an effect in requires_recovery or dead waits for a person", act.EffectKey, state)}
	}
	err := tx.QueryRow(ctx, f.qualify(auditSQL), ref.operationID, ref.seq, act.Actor, act.Reason, act.To, act.At).Scan(&act.AuditID, &act.From)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23514" { // check_violation: the audit table refused
		return &exitError{code: exitUnusable, err: fmt.Errorf("ops: the audit table refused the action: %s", pgErr.Message)}
	}
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, f.qualify(moveSQL), ref.operationID, ref.seq, act.To, act.At)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("moved %d effects, want 1", tag.RowsAffected())
	}
	return nil
}
