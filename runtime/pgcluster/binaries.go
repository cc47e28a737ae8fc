package pgcluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// ErrNotInstalled is the error of Start, StartWith and StartStandby when a
// PostgreSQL program they run is not on the machine; its message says how
// to install it. A test that needs the cluster skips on it.
var ErrNotInstalled = errors.New("pgcluster: PostgreSQL not installed")

// errNoPostgres says how to get PostgreSQL when neither DATABASE_URL nor the
// server binaries are there.
var errNoPostgres = fmt.Errorf("%w: no initdb and postgres found: set DATABASE_URL to a server where you may create schemas "+
	"(e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres), or install PostgreSQL so that initdb and postgres exist "+
	"(Debian/Ubuntu: apt-get install postgresql; Fedora: dnf install postgresql-server; macOS: brew install postgresql@16)", ErrNotInstalled)

// findBinDir returns the directory that holds initdb and postgres: the one
// on PATH first (where the link on PATH leads: the other programs of the
// installation are there, not necessarily on PATH), then the newest of Debian's /usr/lib/postgresql/<version>/bin
// and the other usual install places.
func findBinDir() (string, error) {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	return firstBinDir(append(dirs, candidateBinDirs()...))
}

// firstBinDir returns the first of dirs that holds both initdb and postgres.
func firstBinDir(dirs []string) (string, error) {
	for _, dir := range dirs {
		if isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", errNoPostgres
}

// candidateBinDirs lists install places, newest major version first.
func candidateBinDirs() []string {
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(versioned, func(i, j int) bool {
		return majorVersion(versioned[i]) > majorVersion(versioned[j])
	})
	return append(versioned, "/usr/local/pgsql/bin", "/opt/homebrew/bin", "/usr/local/bin")
}

// majorVersion reads the version from /usr/lib/postgresql/<version>/bin.
func majorVersion(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// needPrograms returns an error wrapping ErrNotInstalled when a program
// of names is missing from binDir.
func needPrograms(binDir string, names ...string) error {
	for _, name := range names {
		if !isExecutable(filepath.Join(binDir, name)) {
			return fmt.Errorf("%w: no %s in %s beside initdb: install PostgreSQL's server and client programs "+
				"(Debian/Ubuntu: apt-get install postgresql postgresql-client; Fedora: dnf install postgresql-server postgresql)",
				ErrNotInstalled, name, binDir)
		}
	}
	return nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}
