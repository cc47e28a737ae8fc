package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// maxTrackedFile is the largest file the repository may track: binaries,
// dumps and generated corpora above it belong outside git.
const maxTrackedFile = 1 << 20

// TestNoLargeTrackedFile fails on any file git tracks that is over 1 MB,
// so that one committed by mistake (a built binary, a database dump) is
// caught before every clone has to carry it. It skips outside a git
// checkout (a module download has no .git).
func TestNoLargeTrackedFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	root := filepath.Join("..", "..")
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout (git ls-files: %v)", err)
	}
	files := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	var largest int64
	var largestName []byte
	for _, name := range files {
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(string(name))))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // deleted in the work tree, not yet in the index
		case err != nil:
			t.Fatal(err)
		case info.Size() > maxTrackedFile:
			t.Errorf("%s is %.1f MB: git tracks no file over 1 MB; remove it (git rm --cached) and keep it out of the repository", name, float64(info.Size())/(1<<20))
		}
		if info.Size() > largest {
			largest, largestName = info.Size(), name
		}
	}
	t.Logf("%d tracked files, the largest %s (%d bytes)", len(files), largestName, largest)
}
