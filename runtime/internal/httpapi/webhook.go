package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
	"github.com/idemgen/idemgen/runtime/internal/stdwebhooks"
)

// Webhook is the contract of a webhook receiver: an inbox consumer whose
// messages arrive over HTTP, signed as Standard Webhooks sign them.
type Webhook struct {
	// Name names the consumer (the webhook's operationId).
	Name string
	// Source is the sender: the scope of its message ids.
	Source string
	// Key is where the message id is: the webhook-id header (the zero
	// value) or a string member of the body (BodyPointer).
	Key KeySpec
	// Secrets verify the signature (several during a rotation); at least
	// one.
	Secrets []stdwebhooks.Secret
	// Tolerance is how far the webhook-timestamp may be from the
	// receiver's clock; 0 means the specification's 5 minutes.
	Tolerance time.Duration
	// MaxAttempts, Retention and WaitTimeout are the consumer's (see
	// inbox.Config).
	MaxAttempts int
	Retention   time.Duration
	WaitTimeout time.Duration
	// MaxBodySize bounds the body read; 0 means fingerprint.MaxBodySize.
	MaxBodySize int64
}

// WebhookFunc handles a webhook's typed payload in the inbox's
// transaction; op enqueues its effects.
type WebhookFunc[T any] func(ctx context.Context, tx pgx.Tx, op *core.Operation, payload T) error

// WebhookReceiver is the http.Handler of a webhook. It verifies the
// signature over the raw body before anything parses it (a bad or old
// signature is a 401 and nothing is recorded), decodes the payload (a 400
// naming the field), and delivers the message to its inbox consumer:
//
//	processed, duplicate   204
//	dead-lettered          202 (kept for support; the sender stops)
//	handler failed         500 webhook-handler-failed (the sender retries)
//	same id, other body    422 idempotency-key-reused
//	a concurrent delivery  409 operation-in-progress, Retry-After
//	database unavailable   503 temporarily-unavailable, Retry-After
//	the deadline passed    503 deadline-exceeded, Retry-After
//
// It never answers 410 Gone, which senders (Svix) take as "disable this
// endpoint".
type WebhookReceiver struct {
	contract Webhook
	consumer *inbox.Consumer
	verifier stdwebhooks.Verifier
	clock    core.Clock
	log      *slog.Logger
	// decode checks the body against the payload's schema; the decoded
	// payload travels to the handler in the context (payloadKey).
	decode func([]byte) (any, error)
}

// payloadKey is the context key of a delivery's decoded payload.
type payloadKey struct{}

// NewWebhookReceiver returns the receiver of contract on h's executor:
// decode parses a body into the payload (errors wrap ErrInvalidBody), fn
// handles it.
func NewWebhookReceiver[T any](h core.Holder, contract Webhook, decode func([]byte) (T, error), fn WebhookFunc[T]) (*WebhookReceiver, error) {
	exec := core.Of(h)
	switch {
	case exec == nil || decode == nil || fn == nil:
		return nil, errors.New("idem: a webhook receiver needs an executor, a decoder and a handler")
	case contract.Source == "":
		return nil, fmt.Errorf("idem: webhook %s without a source", contract.Name)
	case len(contract.Secrets) == 0:
		return nil, fmt.Errorf("idem: webhook %s without a signing secret", contract.Name)
	}
	if contract.Key.MaxLength == 0 {
		contract.Key.MaxLength = defaults.KeyMaxLength
	}
	if contract.MaxBodySize <= 0 {
		contract.MaxBodySize = fingerprint.MaxBodySize
	}
	handle := func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
		payload, ok := ctx.Value(payloadKey{}).(T)
		if !ok { // a redelivery from the inbox's own record: decode again
			var err error
			if payload, err = decode(m.Body); err != nil {
				return err
			}
		}
		return fn(ctx, tx, op, payload)
	}
	c, err := inbox.New(inbox.Config{Executor: exec, Name: contract.Name, MaxAttempts: contract.MaxAttempts,
		Retention: contract.Retention, WaitTimeout: contract.WaitTimeout, Handler: handle})
	if err != nil {
		return nil, err
	}
	return &WebhookReceiver{contract: contract, consumer: c, clock: core.ClockOf(exec), log: core.LoggerOf(exec),
		verifier: stdwebhooks.Verifier{Secrets: contract.Secrets, Tolerance: contract.Tolerance},
		decode:   func(b []byte) (any, error) { return decode(b) }}, nil
}

// Consumer returns the receiver's inbox consumer.
func (wr *WebhookReceiver) Consumer() *inbox.Consumer { return wr.consumer }

func (wr *WebhookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res, err := wr.serve(r)
	if err != nil {
		closeIfUnread(w, r, err)
		p := webhookProblem(err)
		if p.Status >= http.StatusInternalServerError {
			wr.log.WarnContext(r.Context(), "idem: webhook not processed", slog.String("webhook", wr.contract.Name),
				slog.Int("status", p.Status), slog.String("error", err.Error()))
		}
		p.write(w)
		return
	}
	switch res.Outcome {
	case inbox.Processed, inbox.Duplicate:
		w.WriteHeader(http.StatusNoContent)
	case inbox.DeadLettered:
		w.WriteHeader(http.StatusAccepted)
	case inbox.Mismatch:
		(&Problem{Type: ProblemFingerprint, Title: "Webhook id reused", Status: http.StatusUnprocessableEntity,
			Detail: "A webhook with this id and a different body was received before; this one is refused."}).write(w)
	default: // inbox.Retry
		wr.log.WarnContext(r.Context(), "idem: webhook handler failed", slog.String("webhook", wr.contract.Name),
			slog.String("operation_id", res.OperationID), slog.Int("attempts", res.Attempts), slog.Any("error", res.Err))
		(&Problem{Type: ProblemWebhookFailed, Title: "Webhook handler failed", Status: http.StatusInternalServerError,
			Detail: fmt.Sprintf("Nothing of this delivery was kept (attempt %d of %d); send it again.",
				res.Attempts, wr.contract.MaxAttempts)}).write(w)
	}
}

// serve verifies, decodes and delivers a request.
func (wr *WebhookReceiver) serve(r *http.Request) (inbox.Result, error) {
	if r.Method != http.MethodPost {
		return inbox.Result{}, &unreadBodyError{errMethod}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, wr.contract.MaxBodySize+1))
	if err != nil {
		return inbox.Result{}, bodyReadError(err)
	}
	if int64(len(body)) > wr.contract.MaxBodySize {
		return inbox.Result{}, &unreadBodyError{ErrBodyTooLarge}
	}
	h := r.Header
	id := strings.TrimSpace(h.Get(stdwebhooks.HeaderID))
	if err := wr.verifier.Verify(id, h.Get(stdwebhooks.HeaderTimestamp), body, h.Get(stdwebhooks.HeaderSignature), wr.clock.Now()); err != nil {
		return inbox.Result{}, fmt.Errorf("%w: %w", errSignature, err)
	}
	payload, err := wr.decode(body)
	if err != nil {
		return inbox.Result{}, err
	}
	if wr.contract.Key.BodyPointer != "" {
		if id, err = keyFromBody(body, wr.contract.Key); err != nil {
			return inbox.Result{}, err
		}
	}
	if id == "" {
		return inbox.Result{}, fmt.Errorf("%w: the webhook has no message id (%s)", ErrKeyMissing, wr.keyName())
	}
	if err := idemkey.Check(wr.keyName(), id, wr.contract.Key.MaxLength); err != nil {
		return inbox.Result{}, err
	}
	ctx := context.WithValue(r.Context(), payloadKey{}, payload)
	return wr.consumer.Deliver(ctx, inbox.Message{Source: wr.contract.Source, ID: id, Body: body,
		TraceContext: h.Get("traceparent")})
}

// keyName names where the message id is read.
func (wr *WebhookReceiver) keyName() string {
	if p := wr.contract.Key.BodyPointer; p != "" {
		return p
	}
	return stdwebhooks.HeaderID
}

// errSignature wraps a failed signature check (401).
var errSignature = errors.New("idem: webhook signature refused")

// errMethod: a webhook is POSTed (405).
var errMethod = errors.New("idem: a webhook is delivered with POST")

// webhookProblem maps a receiver's error to its problem; the inbox's own
// errors first, then those every handler shares.
func webhookProblem(err error) *Problem {
	switch {
	case errors.Is(err, errSignature):
		return &Problem{Type: ProblemWebhookSignature, Title: "Webhook signature invalid", Status: http.StatusUnauthorized,
			Detail: strings.TrimPrefix(err.Error(), errSignature.Error()+": ")}
	case errors.Is(err, errMethod):
		return &Problem{Type: ProblemMethodNotAllowed, Title: "Method not allowed", Status: http.StatusMethodNotAllowed,
			Detail: "A webhook is delivered with POST.", accept: []string{http.MethodPost}, acceptHeader: "Allow"}
	case errors.Is(err, inbox.ErrBusy):
		return &Problem{Type: ProblemInProgress, Title: "Webhook in progress", Status: http.StatusConflict,
			Detail:     "Another delivery of this webhook is still being processed, or its inbox is locked; nothing of this one was kept. Retry later.",
			retryAfter: time.Second}
	case errors.Is(err, ErrKeyMissing):
		return &Problem{Type: ProblemKeyMissing, Title: "Webhook id missing", Status: http.StatusBadRequest,
			Detail: strings.TrimPrefix(err.Error(), "idem: ")}
	case !errors.Is(err, core.ErrUnavailable) && deadlineExceeded(err):
		return deadlineProblem("The request's deadline passed before the webhook was processed; nothing of it was kept " +
			"and no attempt was counted. Send it again.")
	}
	p := problemFor(err)
	if p.Status == http.StatusInternalServerError {
		// The inbox was not reached or did not answer: nothing was kept.
		p = &Problem{Type: ProblemUnavailable, Title: "Temporarily unavailable", Status: http.StatusServiceUnavailable,
			Detail: "The webhook could not be processed now and nothing of it was kept. Send it again later.", retryAfter: time.Second}
	}
	return p
}
