package schema_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// The executor refuses a schema older than it needs, before it touches
// anything: Require names the version there, the one needed and what to
// run; the handler answers 500 and writes nothing; once the schema is
// migrated the same executor works.
func TestExecutorRefusesAnOldSchema(t *testing.T) {
	ctx := t.Context()
	pool := openPool(t, pgtest.Database(t), 4)
	if _, err := pool.Exec(ctx, shopDDL+"; INSERT INTO public.stock VALUES ('sku-1', 10)"); err != nil {
		t.Fatal(err)
	}
	schema.ApplyReleased(t, pool) // v0.1.0: version 1

	err := schema.Require(ctx, pool, schema.ReleasedSchema)
	var verr *schema.VersionError
	if !errors.As(err, &verr) || verr.Have != 1 || verr.Need != schema.Version {
		t.Fatalf("Require on v0.1.0's schema: %v, want a *schema.VersionError from 1 to %d", err, schema.Version)
	}
	t.Logf("the refusal: %v", err)
	for _, want := range []string{`"idempotency" is at version 1`, fmt.Sprintf("needs version %d", schema.Version), "run schema.Migrate",
		"00002_idemgen_schema_version.sql", "000002_idemgen_schema_version.up.sql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	var logged bytes.Buffer
	shop := newShopLogging(t, pool, nil, slog.New(slog.NewTextHandler(&logged, nil)))
	if rec := order(shop, "acme", "k-1", "sku-1"); rec.Code != http.StatusInternalServerError {
		t.Errorf("the handler on v0.1.0's schema answered %d %s, want 500", rec.Code, rec.Body)
	}
	if !strings.Contains(logged.String(), "level=ERROR") || !strings.Contains(logged.String(), "00002_idemgen_schema_version.sql") {
		t.Errorf("the 500 was not logged at Error with the migration to run:\n%s", logged.String())
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
	if rec := order(shop, "acme", "k-1", "sku-1"); rec.Code != http.StatusCreated {
		t.Fatalf("the same handler after Migrate answered %d %s, want 201", rec.Code, rec.Body)
	}
}
