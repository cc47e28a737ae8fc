package main

import (
	"os"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// TestMain runs the package's tests (the storm, under the long tag) with
// pgtest's database: DATABASE_URL's, or a throwaway cluster it removes at
// the end.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
