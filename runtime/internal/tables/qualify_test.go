package tables_test

import (
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/tables"
)

func TestQualify(t *testing.T) {
	sql := "SELECT idempotency_key FROM idempotency_record JOIN idempotency_outbox USING (scope) WHERE idempotency_record_expires_at_idx"
	want := `SELECT idempotency_key FROM "s x"."idempotency_record" JOIN "s x"."idempotency_outbox" USING (scope) WHERE idempotency_record_expires_at_idx`
	if got := tables.Qualify("s x", sql); got != want {
		t.Errorf("Qualify:\n got %s\nwant %s", got, want)
	}
	if got := tables.Qualify("", sql); got != sql {
		t.Errorf("Qualify with no schema changed the SQL: %s", got)
	}
}
