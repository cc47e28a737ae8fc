package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// jsonMessage is a consumed message in ops messages' JSON output.
type jsonMessage struct {
	Source      string    `json:"source"`
	Consumer    string    `json:"consumer"`
	MessageID   string    `json:"message_id"`
	OperationID string    `json:"operation_id"`
	State       string    `json:"state"`
	Attempts    int       `json:"attempts"`
	MaxAttempts int       `json:"max_attempts"`
	LastError   string    `json:"last_error,omitempty"`
	BodyBytes   int       `json:"body_bytes"`
	ReceivedAt  time.Time `json:"received_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func newOpsMessagesCommand() *cobra.Command {
	var f opsFlags
	var filter idemops.MessageFilter
	var state string
	cmd := &cobra.Command{
		Use:   "messages",
		Short: "List consumed messages (webhooks, broker messages) that were dead-lettered or wait for their support retry",
		Long: "messages prints the inbox's messages in state dead (their consumer's max-attempts spent) or retry (a person " +
			"asked for one more delivery, which the consumer's Redrive makes), oldest change first, up to --limit. " +
			"retry-message takes the operation id shown.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			filter.State = idemops.MessageState(state)
			ctx := cmd.Context()
			s, err := f.connect(ctx)
			if err != nil {
				return err
			}
			defer s.pool.Close()
			msgs, err := s.ops.ListMessages(ctx, filter)
			if err != nil {
				return s.fail(ctx, "messages", err)
			}
			out := cmd.OutOrStdout()
			if f.format == "json" {
				list := []jsonMessage{}
				for _, m := range msgs {
					list = append(list, jsonMessage{Source: m.Source, Consumer: m.Consumer, MessageID: m.MessageID,
						OperationID: m.OperationID, State: string(m.State), Attempts: m.Attempts, MaxAttempts: m.MaxAttempts,
						LastError: m.LastError, BodyBytes: m.BodyBytes, ReceivedAt: m.ReceivedAt, UpdatedAt: m.UpdatedAt})
				}
				return writeJSON(out, list)
			}
			if len(msgs) == 0 {
				_, err := fmt.Fprintln(out, "no dead or retried messages")
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "OPERATION ID\tCONSUMER\tSOURCE\tMESSAGE ID\tSTATE\tATTEMPTS\tUPDATED\tLAST ERROR")
			for _, m := range msgs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", m.OperationID, esc(m.Consumer), esc(m.Source), esc(m.MessageID),
					m.State, m.Attempts, m.MaxAttempts, m.UpdatedAt.Format(time.RFC3339), esc(m.LastError))
			}
			return tw.Flush()
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&state, "state", "", "only messages in this state: dead or retry")
	fl.StringVar(&filter.Consumer, "consumer", "", "only this consumer's messages (a webhook's operationId)")
	fl.IntVar(&filter.Limit, "limit", idemops.DefaultLimit, "at most this many messages, oldest change first")
	return cmd
}

func newOpsRetryMessageCommand() *cobra.Command {
	return newOpsActionCommand("retry-message <operation-id> --reason TEXT --actor NAME",
		"Deliver a dead-lettered message once more, from its stored body, with an audit row",
		"retry-message moves a dead message (listed by ops messages) to retry; its consumer's Redrive delivers it once more "+
			"from the body the inbox kept: a success processes it, a failure makes it dead again at once.",
		func(ctx context.Context, s *opsSession, id string, a idemops.Action) (supportAction, error) {
			e, err := s.ops.RetryMessage(ctx, id, a)
			return supportAction{OperationID: e.OperationID, Message: e.Source + "/" + e.Consumer + "/" + e.MessageID,
				From: string(e.From), To: string(e.To), Actor: e.Actor, Reason: e.Reason, At: e.At, AuditID: e.ID}, err
		})
}
