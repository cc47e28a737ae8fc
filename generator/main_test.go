package generator

import (
	"os"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// TestMain stops the throwaway PostgreSQL the migration tests may start.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
