package idembroker_test

import (
	"os"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// TestMain stops the throwaway PostgreSQL the tests may start.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
