package confine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// Below reports whether path is dir or inside it, judged on the two paths
// as written (both absolute and clean, or both relative to one directory).
func Below(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Real resolves the symbolic links of the absolute path abs. When abs does
// not exist it resolves its nearest existing ancestor and appends the
// rest, so a link out of a directory is found even on the way to a file
// that does not exist yet.
func Real(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	rest := filepath.Base(abs)
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		}
		if parent := filepath.Dir(dir); parent == dir {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}
