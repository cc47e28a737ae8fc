package main

import (
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/spf13/cobra"
)

// effectStates are the states ops list filters by.
var effectStates = []string{"pending", "running", "done", "failed", "requires_recovery", "dead"}

// opsEffect is one effect as support sees it.
type opsEffect struct {
	EffectKey   string    `json:"effect_key"`
	OperationID string    `json:"operation_id"`
	Operation   string    `json:"operation"`
	Scope       string    `json:"scope"`
	Key         string    `json:"key"` // the idempotency key, hashed unless --show-keys
	Effect      string    `json:"effect"`
	Seq         int       `json:"seq"`
	OnUnknown   string    `json:"on_unknown"`
	State       string    `json:"state"`
	Attempts    int       `json:"attempts"`
	LastOutcome string    `json:"last_outcome,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	DueAt       time.Time `json:"due_at"`
}

// listEffectsSQL lists effects with their operations' keys, filtered by
// state, operation name, scope, operation id, idempotency key and age.
const listEffectsSQL = `SELECT * FROM (
    SELECT o.effect_key, o.operation_id::text, coalesce(o.operation, ''), o.scope, coalesce(r.idempotency_key, ''),
           o.effect, o.seq, o.on_unknown, ` + effectStateSQL + ` AS shown_state, o.attempts,
           coalesce(o.last_outcome, ''), coalesce(o.last_error, ''), o.created_at, o.available_at
    FROM idempotency_outbox AS o
    LEFT JOIN LATERAL (
        SELECT idempotency_key FROM idempotency_record AS r
        WHERE r.scope = o.scope AND r.operation_id = o.operation_id LIMIT 1
    ) AS r ON true
    WHERE ($2 = '' OR o.operation = $2) AND ($3 = '' OR o.scope = $3)
      AND ($4 = '' OR o.operation_id = nullif($4, '')::uuid) AND ($5 = '' OR r.idempotency_key = $5)
      AND ($6::timestamptz IS NULL OR o.created_at <= $6)
) AS e
WHERE $1 = '' OR e.shown_state = $1
ORDER BY e.created_at, e.operation_id, e.seq
LIMIT $7`

func newOpsListCommand() *cobra.Command {
	var f opsFlags
	var state, operation, scope, operationID, key string
	var olderThan time.Duration
	var limit int
	var showKeys bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List effects and their operations by state, age, operation, key, scope or operation id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if state != "" && !slices.Contains(effectStates, state) {
				return &exitError{code: exitUnusable, err: fmt.Errorf("--state %q: want one of %v", state, effectStates)}
			}
			if operationID != "" && !uuidPattern.MatchString(operationID) {
				return &exitError{code: exitUnusable, err: fmt.Errorf("--operation-id %q is not a UUID", operationID)}
			}
			ctx := cmd.Context()
			conn, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer func() { _ = conn.Close(ctx) }()
			var before pgtype.Timestamptz
			if olderThan > 0 {
				before = pgtype.Timestamptz{Time: time.Now().Add(-olderThan), Valid: true}
			}
			rows, err := conn.Query(ctx, f.qualify(listEffectsSQL), state, operation, scope, operationID, key, before, limit)
			if err != nil {
				return &exitError{code: exitUnusable, err: fmt.Errorf("ops list: %w", err)}
			}
			var list []opsEffect
			for rows.Next() {
				var e opsEffect
				var k string
				if err := rows.Scan(&e.EffectKey, &e.OperationID, &e.Operation, &e.Scope, &k, &e.Effect, &e.Seq, &e.OnUnknown,
					&e.State, &e.Attempts, &e.LastOutcome, &e.LastError, &e.CreatedAt, &e.DueAt); err != nil {
					return &exitError{code: exitUnusable, err: fmt.Errorf("ops list: %w", err)}
				}
				e.Key = keyShown(k, showKeys)
				e.CreatedAt, e.DueAt = e.CreatedAt.UTC(), e.DueAt.UTC()
				list = append(list, e)
			}
			if err := rows.Err(); err != nil {
				return &exitError{code: exitUnusable, err: fmt.Errorf("ops list: %w", err)}
			}
			out := cmd.OutOrStdout()
			if f.format == "json" {
				if list == nil {
					list = []opsEffect{}
				}
				return writeJSON(out, list)
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "EFFECT KEY\tOPERATION\tSCOPE\tKEY\tSTATE\tATTEMPTS\tLAST OUTCOME\tCREATED")
			for _, e := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", e.EffectKey, orDash(e.Operation), e.Scope, orDash(e.Key),
					e.State, e.Attempts, orDash(e.LastOutcome), utc(e.CreatedAt))
			}
			return tw.Flush()
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&state, "state", "", fmt.Sprintf("only effects in this state: one of %v", effectStates))
	fl.StringVar(&operation, "operation", "", "only effects of this operation (the contract's name)")
	fl.StringVar(&scope, "scope", "", "only effects in this scope")
	fl.StringVar(&operationID, "operation-id", "", "only the effects of this operation id")
	fl.StringVar(&key, "key", "", "only the effects of the operation under this idempotency key")
	fl.DurationVar(&olderThan, "older-than", 0, "only effects enqueued at least this long ago, such as 1h")
	fl.IntVar(&limit, "limit", 100, "at most this many effects, oldest first")
	fl.BoolVar(&showKeys, "show-keys", false, "show idempotency keys in clear (by default a hash)")
	return cmd
}
