package confine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBelow(t *testing.T) {
	for _, tt := range []struct {
		path, dir string
		want      bool
	}{
		{"/a/b", "/a", true},
		{"/a", "/a", true},
		{"/a/../b", "/a", false},
		{"/ab", "/a", false},
		{"/a/..b", "/a", true},
		{"/", "/a", false},
	} {
		if got := Below(filepath.FromSlash(tt.path), filepath.FromSlash(tt.dir)); got != tt.want {
			t.Errorf("Below(%q, %q) = %v, want %v", tt.path, tt.dir, got, tt.want)
		}
	}
}

// TestReal resolves a link to a directory on the way to a file that does
// not exist, and a path without links to itself.
func TestReal(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(tmp, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(tmp, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "out")); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(tree, "out", "gen", "a.go"): filepath.Join(outside, "gen", "a.go"),
		filepath.Join(tree, "gen", "a.go"):        filepath.Join(tree, "gen", "a.go"),
		tree:                                      tree,
	} {
		got, err := Real(in)
		if err != nil || got != want {
			t.Errorf("Real(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
