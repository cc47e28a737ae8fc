package providers

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The generated adapter, driven as the worker drives it: it decodes the
// stored payload into the typed call, passes Verify on for verify effects
// only, fails an undecodable payload for good, and leaves nil providers
// out. The demo provider acts once per effect key.
func TestProvidersThroughTheGeneratedAdapter(t *testing.T) {
	pool, err := pgxpool.New(t.Context(), pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(t.Context(), SchemaSQL); err != nil {
		t.Fatal(err)
	}
	regs := shop.Providers(New(pool))
	if len(regs) != 4 {
		t.Fatalf("%d registrations, want the shop's 4 effects", len(regs))
	}
	for name, verify := range map[string]bool{"confirmation_email": false, "cancellation_email": false, "reserve_stock": true, "release_stock": true} {
		if _, ok := regs[name].(idem.Verifier); ok != verify {
			t.Errorf("%s implements Verify: %v, want %v (its policy is verify: %v)", name, ok, verify, verify)
		}
	}
	if got := shop.Providers(shop.EffectProviders{ReserveStock: New(pool).ReserveStock}); len(got) != 1 || got["reserve_stock"] == nil {
		t.Errorf("registrations of one provider: %v", got)
	}

	reserve := regs["reserve_stock"]
	call := idem.EffectCall{Key: "op-1/reserve_stock/2", Attempt: 1, Effect: "reserve_stock", Operation: "createOrder",
		Payload: []byte(`{"items":[{"quantity":2,"sku":"SKU-1"}],"order_id":"order-1"}`)}
	if v := reserve.(idem.Verifier).Verify(t.Context(), call.Key); v != idem.VerifyNotDone {
		t.Errorf("Verify before any call: %v, want not done", v)
	}
	for attempt := 1; attempt <= 2; attempt++ {
		call.Attempt = attempt
		if got := reserve.Do(t.Context(), call); got.Kind != idem.OutcomeDone {
			t.Errorf("attempt %d: %v %v, want done", attempt, got.Kind, got.Err)
		}
	}
	if v := reserve.(idem.Verifier).Verify(t.Context(), call.Key); v != idem.VerifyDone {
		t.Errorf("Verify after the call: %v, want done", v)
	}
	rows, err := pool.Query(t.Context(), "SELECT order_id, attempt, duplicate FROM provider_calls ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		order     string
		attempt   int
		duplicate bool
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.order, &r.attempt, &r.duplicate); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []row{{"order-1", 1, false}, {"order-1", 2, true}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("provider_calls %+v, want %+v (the payload's order, the repeat a duplicate)", got, want)
	}

	bad := idem.EffectCall{Key: "op-2/confirmation_email/1", Attempt: 1, Payload: []byte(`{"order_id":5}`)}
	if got := regs["confirmation_email"].Do(t.Context(), bad); got.Kind != idem.OutcomeFailed || got.Err == nil {
		t.Errorf("an undecodable payload: %v %v, want failed with the reason", got.Kind, got.Err)
	}
}
