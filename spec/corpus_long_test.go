//go:build long

package spec

import (
	"os"
	"path/filepath"
)

// corpusDirOrEmpty is corpusDir for tests that run without the corpus
// too: it returns "" when there is none. Reading the corpus takes
// minutes, so only the long build (go test -tags long) looks for it.
func corpusDirOrEmpty() string {
	dir, err := filepath.Abs(".")
	if err != nil {
		return ""
	}
	for {
		c := filepath.Join(dir, "shared", "corpus")
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
