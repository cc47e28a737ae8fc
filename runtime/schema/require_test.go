package schema_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// The executor refuses a schema older than it needs, before it touches
// anything, with a message saying which version is there, which is needed
// and what to run; once the schema is migrated the same executor works.
func TestExecutorRefusesAnOldSchema(t *testing.T) {
	ctx := t.Context()
	pool := openPool(t, pgtest.Database(t), 4)
	if _, err := pool.Exec(ctx, shopDDL+"; INSERT INTO public.stock VALUES ('sku-1', 10)"); err != nil {
		t.Fatal(err)
	}
	schema.ApplyReleased(t, pool) // v0.1.0: version 1

	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: schema.ReleasedSchema})
	if err != nil {
		t.Fatal(err)
	}
	c := orderContract()
	call := idem.Call{Scope: "acme", Key: "k-1", Fingerprint: fingerprint.Sum{1},
		Request: &idem.Request{Method: http.MethodPost, Route: "/orders", Body: []byte(`{"sku":"sku-1"}`)}}
	_, err = exec.Do(ctx, &c, call, createOrder(nil))
	var verr *schema.VersionError
	if !errors.As(err, &verr) || verr.Have != 1 || verr.Need != schema.Version {
		t.Fatalf("Do on v0.1.0's schema: %v, want a *schema.VersionError from 1 to %d", err, schema.Version)
	}
	t.Logf("the refusal: %v", err)
	for _, want := range []string{`"idempotency" is at version 1`, "needs version 2", "run schema.Migrate",
		"00002_idemgen_schema_version.sql", "000002_idemgen_schema_version.up.sql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if rec := order(newShop(t, pool, nil), "acme", "k-2", "sku-1"); rec.Code != http.StatusInternalServerError {
		t.Errorf("the handler on v0.1.0's schema answered %d %s, want 500", rec.Code, rec.Body)
	}
	var records, orders int
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM idempotency.idempotency_record), (SELECT count(*) FROM public.orders)").Scan(&records, &orders); err != nil {
		t.Fatal(err)
	}
	if records != 0 || orders != 0 {
		t.Errorf("the refused operations left %d records and %d orders", records, orders)
	}

	if err := schema.Migrate(ctx, pool, schema.ReleasedSchema); err != nil {
		t.Fatal(err)
	}
	res, err := exec.Do(ctx, &c, call, createOrder(nil))
	if err != nil || res.Response.Status != http.StatusCreated {
		t.Fatalf("Do after Migrate: %v %+v", err, res)
	}
}
