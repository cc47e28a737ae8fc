package inbox_test

import (
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/sqlccheck"
)

// TestSQLCGeneratedCodeIsCurrent: internal/sqlcdb is what sqlc makes of
// queries/ and the schema steps (sqlccheck.Current).
func TestSQLCGeneratedCodeIsCurrent(t *testing.T) { sqlccheck.Current(t) }
