package idemimpl

import (
	"fmt"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
	"github.com/idemgen/idemgen/runtime/internal/stdwebhooks"
)

// Webhook is the contract of a generated webhook receiver: its consumer's
// name, the sender (Source) that scopes its message ids, where the id is
// (Key: webhook-id or a body member), the poison policy (MaxAttempts),
// Retention and the signature's timestamp Tolerance. Secrets are left
// empty: they come from configuration, through NewWebhookReceiver.
type Webhook = httpapi.Webhook

// WebhookFunc handles a webhook's typed payload in the inbox's
// transaction; op enqueues its effects.
type WebhookFunc[T any] = httpapi.WebhookFunc[T]

// WebhookReceiver is the http.Handler of a generated webhook receiver.
type WebhookReceiver = httpapi.WebhookReceiver

// NewWebhookReceiver returns the receiver of w run by exec, verifying
// Standard Webhooks signatures with secrets (whsec_… strings: several
// during a rotation), decoding bodies with decode and handling them with
// fn.
func NewWebhookReceiver[T any](exec *idem.Executor, w Webhook, secrets []string, decode func([]byte) (T, error), fn WebhookFunc[T]) (*WebhookReceiver, error) {
	if exec == nil {
		return nil, errNoExecutor
	}
	w.Secrets = nil
	for i, s := range secrets {
		key, err := stdwebhooks.ParseSecret(s)
		if err != nil {
			return nil, fmt.Errorf("idem: webhook %s: secret %d: %w", w.Name, i+1, err)
		}
		w.Secrets = append(w.Secrets, key)
	}
	return httpapi.NewWebhookReceiver(exec, w, decode, fn)
}
