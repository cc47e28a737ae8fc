package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/spf13/cobra"
)

// opsOperation is one operation with its effects, their attempts and the
// support actions taken on them.
type opsOperation struct {
	OperationID string            `json:"operation_id"`
	Scope       string            `json:"scope,omitempty"`
	Key         string            `json:"key,omitempty"`
	State       string            `json:"state,omitempty"` // the record's; "" when the record is gone (swept)
	Status      int               `json:"status,omitempty"`
	CreatedAt   *time.Time        `json:"created_at,omitempty"`
	CompletedAt *time.Time        `json:"completed_at,omitempty"`
	Effects     []opsEffectDetail `json:"effects"`
}

// opsEffectDetail is an effect with its history.
type opsEffectDetail struct {
	opsEffect
	History []opsAttempt `json:"attempt_history"`
	Audit   []opsAudit   `json:"audit"`
}

// opsAttempt is one attempt of an effect.
type opsAttempt struct {
	Attempt    int        `json:"attempt"`
	Token      int64      `json:"fencing_token"`
	Worker     string     `json:"worker"`
	Kind       string     `json:"kind,omitempty"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Outcome    string     `json:"outcome,omitempty"` // "" while it runs
	Error      string     `json:"error,omitempty"`
}

// opsAudit is one support action on an effect.
type opsAudit struct {
	ID     int64     `json:"id"`
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason"`
}

const showRecordSQL = `SELECT scope, idempotency_key, state, coalesce(response_status, 0), created_at, completed_at
FROM idempotency_record WHERE operation_id = $1::uuid LIMIT 1`

const showAttemptsSQL = `SELECT attempt, fencing_token, worker, coalesce(kind, ''), started_at, finished_at,
       coalesce(outcome, ''), coalesce(error, '')
FROM idempotency_effect_attempt WHERE operation_id = $1::uuid AND seq = $2 ORDER BY fencing_token`

const showAuditSQL = `SELECT id, at, actor, from_state, to_state, reason
FROM idempotency_effect_audit WHERE operation_id = $1::uuid AND seq = $2 ORDER BY id`

func newOpsShowCommand() *cobra.Command {
	var f opsFlags
	var showKeys bool
	cmd := &cobra.Command{
		Use:   "show <operation-id>",
		Short: "Show one operation with its effects, their attempt history and support actions",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if !uuidPattern.MatchString(id) {
				return &exitError{code: exitUnusable, err: fmt.Errorf("operation id %q is not a UUID", id)}
			}
			ctx := cmd.Context()
			conn, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer func() { _ = conn.Close(ctx) }()
			op, err := showOperation(ctx, conn, &f, id, showKeys)
			if err != nil {
				return err
			}
			if f.format == "json" {
				return writeJSON(cmd.OutOrStdout(), op)
			}
			return printOperation(cmd.OutOrStdout(), op)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&showKeys, "show-keys", false, "show the idempotency key in clear (by default a hash)")
	return cmd
}

// showOperation reads operation id, its effects and their histories.
func showOperation(ctx context.Context, conn *pgx.Conn, f *opsFlags, id string, showKeys bool) (*opsOperation, error) {
	fail := func(err error) (*opsOperation, error) {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("ops show: %w", err)}
	}
	op := &opsOperation{OperationID: id, Effects: []opsEffectDetail{}}
	var key string
	var created, completed pgtype.Timestamptz
	switch err := conn.QueryRow(ctx, f.qualify(showRecordSQL), id).Scan(&op.Scope, &key, &op.State, &op.Status, &created, &completed); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return fail(err)
	default:
		op.Key = keyShown(key, showKeys)
		op.CreatedAt, op.CompletedAt = timePtr(created), timePtr(completed)
	}
	rows, err := conn.Query(ctx, f.qualify(listEffectsSQL), "", "", "", id, "", pgtype.Timestamptz{}, 10000)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var e opsEffect
		var k string
		if err := rows.Scan(&e.EffectKey, &e.OperationID, &e.Operation, &e.Scope, &k, &e.Effect, &e.Seq, &e.OnUnknown,
			&e.State, &e.Attempts, &e.LastOutcome, &e.LastError, &e.CreatedAt, &e.DueAt); err != nil {
			return fail(err)
		}
		e.Key = keyShown(k, showKeys)
		e.CreatedAt, e.DueAt = e.CreatedAt.UTC(), e.DueAt.UTC()
		op.Effects = append(op.Effects, opsEffectDetail{opsEffect: e, History: []opsAttempt{}, Audit: []opsAudit{}})
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if op.State == "" && len(op.Effects) == 0 {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("ops show: no operation %s (neither a record nor an effect)", id)}
	}
	for i := range op.Effects {
		e := &op.Effects[i]
		if op.Scope == "" {
			op.Scope = e.Scope
		}
		rows, err := conn.Query(ctx, f.qualify(showAttemptsSQL), id, e.Seq)
		if err != nil {
			return fail(err)
		}
		for rows.Next() {
			var a opsAttempt
			var finished pgtype.Timestamptz
			if err := rows.Scan(&a.Attempt, &a.Token, &a.Worker, &a.Kind, &a.StartedAt, &finished, &a.Outcome, &a.Error); err != nil {
				return fail(err)
			}
			a.StartedAt, a.FinishedAt = a.StartedAt.UTC(), timePtr(finished)
			e.History = append(e.History, a)
		}
		if err := rows.Err(); err != nil {
			return fail(err)
		}
		rows, err = conn.Query(ctx, f.qualify(showAuditSQL), id, e.Seq)
		if err != nil {
			return fail(err)
		}
		for rows.Next() {
			var a opsAudit
			if err := rows.Scan(&a.ID, &a.At, &a.Actor, &a.From, &a.To, &a.Reason); err != nil {
				return fail(err)
			}
			a.At = a.At.UTC()
			e.Audit = append(e.Audit, a)
		}
		if err := rows.Err(); err != nil {
			return fail(err)
		}
	}
	return op, nil
}

func timePtr(t pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}

func utcPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return utc(*t)
}

// printOperation prints op for people.
func printOperation(w io.Writer, op *opsOperation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	state := op.State
	if state == "" {
		state = "(record swept)"
	}
	fmt.Fprintf(tw, "operation\t%s\nscope\t%s\nkey\t%s\nstate\t%s\nstatus\t%d\ncreated\t%s\ncompleted\t%s\n",
		op.OperationID, op.Scope, orDash(op.Key), state, op.Status, utcPtr(op.CreatedAt), utcPtr(op.CompletedAt))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range op.Effects {
		fmt.Fprintf(w, "\neffect %s (%s, on unknown: %s): %s after %d attempts", e.EffectKey, e.Effect, e.OnUnknown, e.State, e.Attempts)
		if e.LastError != "" {
			fmt.Fprintf(w, "; last error: %s", e.LastError)
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  ATTEMPT\tTOKEN\tWORKER\tKIND\tSTARTED\tFINISHED\tOUTCOME\tERROR")
		for _, a := range e.History {
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Attempt, a.Token, a.Worker, orDash(a.Kind), utc(a.StartedAt),
				utcPtr(a.FinishedAt), orDash(a.Outcome), orDash(a.Error))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, a := range e.Audit {
			fmt.Fprintf(w, "  support #%d at %s by %s: %s -> %s: %s\n", a.ID, utc(a.At), a.Actor, a.From, a.To, a.Reason)
		}
	}
	return nil
}
