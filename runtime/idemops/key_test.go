package idemops_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// keySeed: the key abc in two scopes, a key with a space (only a
// Structured Field string can carry it), and an effect of the first.
const keySeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, response_status,
    response_headers, response_body, created_at, completed_at, expires_at, purge_at) VALUES
 ('tenant-a', 'abc', '\x00', 'failed', 'aaaaaaaa-0000-4000-8000-000000000001', 409,
  '{"Content-Type": ["application/problem+json"]}', '{"status":409}', now() - interval '2 min', now(), now() + interval '1 day', now() + interval '2 days'),
 ('tenant-b', 'abc', '\x00', 'completed', 'bbbbbbbb-0000-4000-8000-000000000001', 201,
  '{}', '{}', now() - interval '1 min', now(), now() + interval '1 day', now() + interval '2 days'),
 ('tenant-a', 'with space', '\x00', 'completed', 'aaaaaaaa-0000-4000-8000-000000000002', 201,
  '{}', '{}', now(), now(), now() + interval '1 day', now() + interval '2 days');
INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, available_at, created_at, operation)
VALUES ('tenant-b', 'bbbbbbbb-0000-4000-8000-000000000001', 1, 'mail', 'bbbbbbbb-0000-4000-8000-000000000001/mail/1', 'retry',
        now(), now(), 'createOrder');
`

var secret = []byte("the deployment's secret")

// A key is found in either form a client sends it, and shown as the
// executor's keyed hash; in clear only when asked.
func TestKeysFoundInEitherFormAndShownHashed(t *testing.T) {
	d := newDB(t)
	d.exec(t, keySeed)
	c := d.client(t, idemops.Config{KeyHashSecret: secret})
	ctx := t.Context()
	for _, key := range []string{"abc", `"abc"`, ` "abc" `} {
		ops, err := c.ListOperations(ctx, idemops.OperationFilter{Filter: idemops.Filter{Key: key}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, op := range ops {
			got = append(got, op.Scope+" "+op.KeyHash+" "+op.Key)
		}
		want := []string{"tenant-a " + idemkey.Hash(secret, "tenant-a", "abc") + " ", "tenant-b " + idemkey.Hash(secret, "tenant-b", "abc") + " "}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("operations under key %s (-want +got):\n%s", key, diff)
		}
		effects, err := c.ListEffects(ctx, idemops.EffectFilter{Filter: idemops.Filter{Key: key, Scope: "tenant-b"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(effects) != 1 || effects[0].KeyHash != idemkey.Hash(secret, "tenant-b", "abc") || effects[0].IdempotencyKey != "" {
			t.Errorf("effects under key %s in tenant-b: %+v", key, effects)
		}
	}
	spaced, err := c.ListOperations(ctx, idemops.OperationFilter{Filter: idemops.Filter{Key: `"with space"`}})
	if err != nil || len(spaced) != 1 || spaced[0].ID != "aaaaaaaa-0000-4000-8000-000000000002" {
		t.Errorf(`key "with space": %+v, %v`, spaced, err)
	}
	if _, err := c.ListOperations(ctx, idemops.OperationFilter{Filter: idemops.Filter{Key: "with space"}}); !errors.Is(err, idemops.ErrInvalid) {
		t.Errorf("a bare key with a space: %v, want ErrInvalid", err)
	}

	shown := d.client(t, idemops.Config{ShowKeys: true})
	ops, err := shown.ListOperations(ctx, idemops.OperationFilter{Filter: idemops.Filter{Key: "abc", Scope: "tenant-a"}})
	if err != nil || len(ops) != 1 || ops[0].Key != "abc" || ops[0].KeyHash != "" {
		t.Errorf("with ShowKeys and no secret: %+v, %v; want the key in clear and no hash", ops, err)
	}
}

// Find, the status route's lookup, reaches one scope only: another
// scope's key is as unknown as a key never sent.
func TestFindStaysInItsScope(t *testing.T) {
	d := newDB(t)
	d.exec(t, keySeed)
	c := d.client(t, idemops.Config{KeyHashSecret: secret})
	ctx := t.Context()
	op, err := c.Find(ctx, "tenant-a", `"abc"`)
	if err != nil {
		t.Fatal(err)
	}
	want := &idemops.Response{Status: 409, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: []byte(`{"status":409}`)}
	if op.ID != "aaaaaaaa-0000-4000-8000-000000000001" || op.State != idemops.OperationFailed || op.EffectCount != 0 || op.Key != "" ||
		!cmp.Equal(op.Response, want) {
		t.Errorf("Find(tenant-a, abc) = %+v (response %+v)", op, op.Response)
	}
	for _, scope := range []string{"tenant-c", "", "tenant-"} {
		if op, err := c.Find(ctx, scope, "abc"); !errors.Is(err, idemops.ErrNotFound) {
			t.Errorf("Find(%q, abc) = %+v, %v; want ErrNotFound", scope, op, err)
		}
	}
	if _, err := c.Find(ctx, "tenant-a", ""); !errors.Is(err, idemops.ErrInvalid) {
		t.Errorf("Find without a key: %v, want ErrInvalid", err)
	}
}
