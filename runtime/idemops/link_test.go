package idemops_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// linkSeed: two orders whose answers linked /orders/42 and /orders/142 in
// one scope, /orders/42 again in another, a failed operation without a
// Location, and an effect of the first.
const linkSeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, response_status,
    response_headers, response_body, created_at, completed_at, expires_at, purge_at) VALUES
 ('tenant-a', 'k1', '\x00', 'completed', 'aaaaaaaa-0000-4000-8000-000000000001', 201,
  '{"Location": ["/orders/42"]}', '{}', now() - interval '3 min', now(), now() + interval '1 day', now() + interval '2 days'),
 ('tenant-a', 'k2', '\x00', 'completed', 'aaaaaaaa-0000-4000-8000-000000000002', 201,
  '{"Location": ["/orders/142"]}', '{}', now() - interval '2 min', now(), now() + interval '1 day', now() + interval '2 days'),
 ('tenant-b', 'k1', '\x00', 'completed', 'bbbbbbbb-0000-4000-8000-000000000001', 201,
  '{"Location": ["https://shop.example/orders/42"]}', '{}', now() - interval '1 min', now(), now() + interval '1 day', now() + interval '2 days'),
 ('tenant-a', 'k3', '\x00', 'failed', 'aaaaaaaa-0000-4000-8000-000000000003', 409,
  '{"Content-Type": ["application/problem+json"]}', '{}', now(), now(), now() + interval '1 day', now() + interval '2 days');
INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, available_at, created_at, operation)
VALUES ('tenant-a', 'aaaaaaaa-0000-4000-8000-000000000001', 1, 'mail', 'aaaaaaaa-0000-4000-8000-000000000001/mail/1', 'retry',
        now(), now(), 'createOrder');
`

// Support finds an operation and its effects by the link its answer gave
// the created resource, whole or by its last segments, and not by a
// segment's suffix (42 is not 142).
func TestFoundByTheCreatedResourcesLink(t *testing.T) {
	d := newDB(t)
	d.exec(t, linkSeed)
	c := d.client(t, idemops.Config{})
	ctx := t.Context()
	for _, tc := range []struct {
		link, scope string
		want        []string
	}{
		{link: "/orders/42", want: []string{"aaaaaaaa-0000-4000-8000-000000000001"}},
		{link: "42", want: []string{"aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000001"}},
		{link: "orders/42", want: []string{"aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000001"}},
		{link: "42", scope: "tenant-b", want: []string{"bbbbbbbb-0000-4000-8000-000000000001"}},
		{link: "https://shop.example/orders/42", want: []string{"bbbbbbbb-0000-4000-8000-000000000001"}},
		{link: "142", want: []string{"aaaaaaaa-0000-4000-8000-000000000002"}},
		{link: "2", want: nil},
		{link: "/orders/4", want: nil},
	} {
		ops, err := c.ListOperations(ctx, idemops.OperationFilter{Filter: idemops.Filter{Link: tc.link, Scope: tc.scope}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, op := range ops {
			got = append(got, op.ID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("operations linking %q in scope %q (-want +got):\n%s", tc.link, tc.scope, diff)
		}
	}
	effects, err := c.ListEffects(ctx, idemops.EffectFilter{Filter: idemops.Filter{Link: "/orders/42"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(effects) != 1 || effects[0].OperationID != "aaaaaaaa-0000-4000-8000-000000000001" {
		t.Errorf("effects of the operation linking /orders/42: %+v", effects)
	}
	if effects, err := c.ListEffects(ctx, idemops.EffectFilter{Filter: idemops.Filter{Link: "142"}}); err != nil || len(effects) != 0 {
		t.Errorf("effects of an operation without any: %+v, %v", effects, err)
	}
}
