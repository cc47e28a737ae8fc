package core_test

import (
	"os"
	"testing"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(childConnEnv) != "" {
		runChild()
		return
	}
	os.Exit(pgtest.Main(m))
}
