package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// supportAction is the result of resolve, retry and resume: on an effect
// (effect_key) or on an operation (operation_id).
type supportAction struct {
	EffectKey   string    `json:"effect_key,omitempty"`
	OperationID string    `json:"operation_id,omitempty"`
	Message     string    `json:"message,omitempty"` // a consumed message's source/consumer/id
	From        string    `json:"from"`
	To          string    `json:"to"`
	Actor       string    `json:"actor"`
	Reason      string    `json:"reason"`
	At          time.Time `json:"at"`
	AuditID     int64     `json:"audit_id"`
}

// resolveFlags are ops resolve's flags: --to for an effect, --as and the
// answer's for an operation.
type resolveFlags struct {
	to, as                      string
	status                      int
	contentType, body, bodyFile string
	problemType, title, detail  string
}

// operationFlags are the flags that only resolve an operation, each with
// the --as it belongs to ("" for both).
var operationFlags = []struct{ name, as string }{
	{"as", ""}, {"status", ""}, {"content-type", "completed"}, {"body", "completed"}, {"body-file", "completed"},
	{"type", "failed"}, {"title", "failed"}, {"detail", "failed"},
}

func newOpsResolveCommand() *cobra.Command {
	var f opsFlags
	var r resolveFlags
	var a idemops.Action
	cmd := &cobra.Command{
		Use:   "resolve (<effect-key> --to done|failed | <operation-id> --as completed|failed ...) --reason TEXT --actor NAME",
		Short: "Resolve an effect in requires_recovery or dead, or an operation in requires_recovery, with an audit row",
		Long: "resolve records what a person established about what the runtime could not decide.\n\n" +
			"An effect, named by its key <operation id>/<effect>/<seq>, goes --to done (it happened) or failed (it did not " +
			"and will not); only an effect in requires_recovery or dead can be resolved.\n\n" +
			"An operation, named by its operation id, is one halted on an unknown outcome (requires_recovery); it is settled " +
			"with the answer every later retry then receives, as a replay. --as completed answers with --status (2xx), " +
			"--content-type and the body (--body, or --body-file, - for stdin); --as failed answers with an RFC 9457 problem " +
			"(application/problem+json): --status (4xx or 5xx), --title, and optionally --type (an absolute URI) and --detail. " +
			"Its recovery point is dropped. To have the service call again from its last recovery point instead, use ops resume.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := args[0]
			if strings.Contains(target, "/") {
				return resolveEffect(cmd, &f, &r, target, a)
			}
			return resolveOperation(cmd, &f, &r, target, a)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&r.to, "to", "", "an effect: the state to resolve it to, done or failed")
	fl.StringVar(&r.as, "as", "", "an operation: completed or failed, with the answer later retries receive")
	fl.IntVar(&r.status, "status", 0, "an operation: the answer's status (2xx for completed, 4xx or 5xx for failed)")
	fl.StringVar(&r.contentType, "content-type", "", "an operation --as completed: the body's media type, such as application/json")
	fl.StringVar(&r.body, "body", "", "an operation --as completed: the answer's body")
	fl.StringVar(&r.bodyFile, "body-file", "", "an operation --as completed: read the answer's body from this file (- for stdin)")
	fl.StringVar(&r.problemType, "type", "", "an operation --as failed: the problem's type, an absolute URI (default about:blank)")
	fl.StringVar(&r.title, "title", "", "an operation --as failed: the problem's title")
	fl.StringVar(&r.detail, "detail", "", "an operation --as failed: the problem's detail")
	supportFlags(cmd, &a)
	return cmd
}

// resolveEffect resolves the effect key, as ops resolve always did.
func resolveEffect(cmd *cobra.Command, f *opsFlags, r *resolveFlags, key string, a idemops.Action) error {
	for _, o := range operationFlags {
		if cmd.Flags().Changed(o.name) {
			return usageError("--%s resolves an operation (named by its operation id); the effect key %s is resolved with --to done|failed", o.name, key)
		}
	}
	if r.to != "done" && r.to != "failed" {
		return usageError("--to %q: want done or failed (ops retry runs the effect again)", r.to)
	}
	return supportMove(cmd, f, a, func(s *opsSession) (supportAction, error) {
		e, err := s.ops.Resolve(cmd.Context(), key, idemops.EffectState(r.to), a)
		return effectAction(key, e), err
	})
}

// resolveOperation resolves the operation id with the answer the flags
// give.
func resolveOperation(cmd *cobra.Command, f *opsFlags, r *resolveFlags, id string, a idemops.Action) error {
	if cmd.Flags().Changed("to") {
		return usageError("%q is no effect key (<operation id>/<effect>/<seq>): --to resolves an effect; resolve an operation with --as completed|failed", id)
	}
	if r.as != "completed" && r.as != "failed" {
		return usageError("--as %q: resolve the operation %s --as completed (with --status, --content-type and --body) or --as failed (with --status and --title)", r.as, id)
	}
	for _, o := range operationFlags {
		if o.as != "" && o.as != r.as && cmd.Flags().Changed(o.name) {
			return usageError("--%s belongs to --as %s, not to --as %s", o.name, o.as, r.as)
		}
	}
	res := idemops.Resolution{To: idemops.OperationState(r.as)}
	if r.as == "failed" {
		res.Problem = idemops.Problem{Status: r.status, Type: r.problemType, Title: r.title, Detail: r.detail}
	} else {
		body, err := r.answerBody(cmd)
		if err != nil {
			return err
		}
		res.Answer = idemops.Answer{Status: r.status, ContentType: r.contentType, Body: body}
	}
	return supportMove(cmd, f, a, func(s *opsSession) (supportAction, error) {
		e, err := s.ops.ResolveOperation(cmd.Context(), id, res, a)
		return operationAction(e), err
	})
}

// answerBody is the body --body or --body-file gives; nil for none. A
// file larger than the library takes is read one byte past its bound, for
// the library to refuse by its size.
func (r *resolveFlags) answerBody(cmd *cobra.Command) ([]byte, error) {
	switch {
	case r.body != "" && r.bodyFile != "":
		return nil, usageError("give the body once: --body or --body-file")
	case r.bodyFile != "":
		in := cmd.InOrStdin()
		if r.bodyFile != "-" {
			file, err := os.Open(r.bodyFile)
			if err != nil {
				return nil, usageError("--body-file: %w", err)
			}
			defer file.Close()
			in = file
		}
		body, err := io.ReadAll(io.LimitReader(in, idemops.MaxAnswerBody+1))
		if err != nil {
			return nil, usageError("--body-file %s: %w", r.bodyFile, err)
		}
		return body, nil
	case r.body != "":
		return []byte(r.body), nil
	}
	return nil, nil
}

func newOpsRetryCommand() *cobra.Command {
	return newOpsActionCommand("retry <effect-key> --reason TEXT --actor NAME",
		"Run an effect in requires_recovery or dead again, with fresh attempts and an audit row",
		"retry makes the effect due now with its attempt count reset; the worker calls the provider again under the same "+
			"effect key, without asking Verify or halting first: the person retrying has decided it is safe.",
		func(ctx context.Context, s *opsSession, key string, a idemops.Action) (supportAction, error) {
			e, err := s.ops.Retry(ctx, key, a)
			return effectAction(key, e), err
		})
}

func newOpsResumeCommand() *cobra.Command {
	return newOpsActionCommand("resume <operation-id> --reason TEXT --actor NAME",
		"Hand an operation in requires_recovery back to the service, from its last recovery point, with an audit row",
		"resume puts an operation halted on an unknown outcome back in progress, with its lease run out: the client's "+
			"next retry, or the service's completer, takes it over from its last recovery point and makes the call whose outcome "+
			"was unknown again, with the same step key, instead of halting again. Resume only once the provider confirmed that "+
			"calling again is safe (it did not act, or it recognises the step key). Only an operation in requires_recovery that "+
			"is not past retention can be resumed; ops resolve settles one instead.",
		func(ctx context.Context, s *opsSession, id string, a idemops.Action) (supportAction, error) {
			e, err := s.ops.Resume(ctx, id, a)
			return operationAction(e), err
		})
}

// newOpsActionCommand builds a support command that takes one argument,
// what it acts on, besides --reason and --actor, and runs act.
func newOpsActionCommand(use, short, long string, act func(context.Context, *opsSession, string, idemops.Action) (supportAction, error)) *cobra.Command {
	var f opsFlags
	var a idemops.Action
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return supportMove(cmd, &f, a, func(s *opsSession) (supportAction, error) {
				return act(cmd.Context(), s, args[0], a)
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

// effectAction is what a support action on the effect key did.
func effectAction(key string, e idemops.AuditEntry) supportAction {
	return supportAction{EffectKey: key, From: string(e.From), To: string(e.To), Actor: e.Actor, Reason: e.Reason, At: e.At, AuditID: e.ID}
}

// operationAction is what a support action on an operation did.
func operationAction(e idemops.OperationAuditEntry) supportAction {
	return supportAction{OperationID: e.OperationID, From: string(e.From), To: string(e.To), Actor: e.Actor, Reason: e.Reason, At: e.At,
		AuditID: e.ID}
}

// supportMove runs a support action (move) and prints what it did.
func supportMove(cmd *cobra.Command, f *opsFlags, a idemops.Action, move func(*opsSession) (supportAction, error)) error {
	if strings.TrimSpace(a.Reason) == "" || strings.TrimSpace(a.Actor) == "" {
		return &exitError{code: exitUnusable, err: errors.New("a support action needs --reason and --actor: both go to the audit table")}
	}
	s, err := f.connect(cmd.Context())
	if err != nil {
		return err
	}
	defer s.pool.Close()
	act, err := move(s)
	if err != nil {
		return s.fail(cmd.Context(), cmd.Name(), err)
	}
	if f.format == "json" {
		return writeJSON(cmd.OutOrStdout(), act)
	}
	what := "effect " + act.EffectKey
	switch {
	case act.Message != "":
		what = "message " + esc(act.Message) + " (" + act.OperationID + ")"
	case act.OperationID != "":
		what = "operation " + act.OperationID
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %s -> %s (audit #%d, by %s: %s)\n", what, act.From, act.To, act.AuditID, esc(act.Actor), esc(act.Reason))
	if act.OperationID == "" {
		return nil
	}
	next := "every later retry of it receives this answer, replayed"
	switch {
	case act.Message != "":
		next = "its consumer's Redrive delivers it once more from the stored body; a failure makes it dead again"
	case idemops.OperationState(act.To) == idemops.OperationInProgress:
		next = "the next retry, or the service's completer, takes it over from its last recovery point and calls again with the same step key"
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), next)
	return err
}

// usageError is unusable input, exit code 2.
func usageError(format string, args ...any) error {
	return &exitError{code: exitUnusable, err: fmt.Errorf(format, args...)}
}
