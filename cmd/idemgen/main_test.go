package main

import (
	"os"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// TestMain stops the throwaway PostgreSQL that tests needing a database
// start when DATABASE_URL is unset.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
