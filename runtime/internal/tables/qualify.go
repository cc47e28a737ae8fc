package tables

import (
	"regexp"

	"github.com/jackc/pgx/v5"
)

// names matches the runtime's table names in SQL. They are listed, not
// matched by their idempotency_ prefix, which the column idempotency_key
// shares; a table a schema step adds is added here.
var names = regexp.MustCompile(`\bidempotency_(record|outbox|natural_key|effect_attempt|effect_audit|schema_version|progress|operation_audit|inbox|inbox_audit)\b`)

// Qualify returns sql with each runtime table named in schema, quoted;
// schema "" leaves the tables to the search_path.
func Qualify(schema, sql string) string {
	if schema == "" {
		return sql
	}
	return names.ReplaceAllStringFunc(sql, func(table string) string {
		return pgx.Identifier{schema, table}.Sanitize()
	})
}
