package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenFixture stands in for the hand-written fixture a service supplies:
// without a business implementation the contract tests skip, while the
// typed-fingerprint property tests of every case run for real.
const goldenFixture = `package golden

import "testing"

func newContractFixture(t *testing.T) *contractFixture {
	t.Skip("golden case: no business implementation")
	return nil
}
`

// TestGoldenGeneratedCodeCompiles puts the generated Go of every golden
// case (testdata/golden/*/want/generate/go, written by cmd/idemgen's TestGolden)
// into a module that uses this repository's runtime, one package per case,
// and runs go vet and go test on it.
func TestGoldenGeneratedCodeCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every golden case")
	}
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "golden", "*", "want", "generate", "go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no generated golden cases under testdata/golden; run go test ./cmd/idemgen -run TestGolden -update")
	}
	files := map[string][]byte{}
	for _, dir := range dirs {
		name := strings.ToLower(strings.ReplaceAll(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(dir)))), "-", "_"))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			src, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[name+"/"+e.Name()] = src
		}
		files[name+"/fixture_test.go"] = []byte(goldenFixture)
	}
	vetModule(t, files)
}
