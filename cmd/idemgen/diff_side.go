package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v4"
)

// side is one spec idemgen diff compares: a file, or the file at a git
// revision (REV:path), written with the files its $refs reach into a
// temporary directory so the spec loader reads the revision as it was.
type side struct {
	// arg is the side as the user gave it.
	arg string
	// file is the path to load.
	file string
	// For a revision: the revision, the spec's path inside the repository,
	// the current directory's path inside it (git's prefix, "" at the top)
	// and the temporary directory holding the revision's files.
	rev, rel, prefix, dir string
}

// openSide resolves arg. A path that exists is a file; otherwise REV:path
// names a file at a git revision, with path relative to the repository's
// top unless it starts with ./ or ../ (as git show reads it). A revision
// that starts with '-' is refused, and git is told where its options end,
// so no side is ever an option of git's.
func openSide(ctx context.Context, arg string) (*side, error) {
	rev, p, ok := strings.Cut(arg, ":")
	if _, err := os.Stat(arg); err == nil || !ok || rev == "" || p == "" {
		return &side{arg: arg, file: arg}, nil
	}
	if strings.HasPrefix(rev, "-") {
		// git would read it as an option, such as --output=FILE, which
		// writes where the pull request's author chooses.
		return nil, fmt.Errorf("%s: the revision %q starts with '-', which git would read as an option: name a revision such as HEAD~1 or origin/main", arg, rev)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("%s: reading a spec at a revision needs git: %v", arg, err)
	}
	prefix, err := git(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, fmt.Errorf("%s: not inside a git repository: %v", arg, err)
	}
	cwd := strings.TrimSuffix(strings.TrimSpace(string(prefix)), "/")
	rel := path.Clean(filepath.ToSlash(p))
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		rel = path.Join(cwd, rel)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return nil, fmt.Errorf("%s: %s is outside the repository", arg, p)
	}
	dir, err := os.MkdirTemp("", "idemgen-diff-")
	if err != nil {
		return nil, err
	}
	s := &side{arg: arg, file: filepath.Join(dir, filepath.FromSlash(rel)), rev: rev, rel: rel, prefix: cwd, dir: dir}
	if err := s.fetch(ctx); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// fetch writes the spec at the revision and every file its relative $refs
// reach, transitively, into the temporary directory. A referenced file
// missing at the revision is left out for the loader to report at the
// $ref; a $ref that leaves the repository is an error.
func (s *side) fetch(ctx context.Context) error {
	queue := []string{s.rel}
	seen := map[string]bool{s.rel: true}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		data, err := git(ctx, "show", "--end-of-options", s.rev+":"+rel)
		if err != nil {
			if rel == s.rel {
				return fmt.Errorf("%s: %v", s.arg, err)
			}
			continue
		}
		target := filepath.Join(s.dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		for _, ref := range fileRefs(data) {
			next := path.Join(path.Dir(rel), ref)
			if next == ".." || strings.HasPrefix(next, "../") {
				return fmt.Errorf("%s:%s: $ref %q leaves the repository, so it cannot be read at %s", s.rev, rel, ref, s.rev)
			}
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// fileRefs returns the file parts of the relative $refs in a YAML or JSON
// document: "schemas.yaml" for "schemas.yaml#/Order". Local and URL
// references are skipped; a document that does not parse has none (the
// loader reports it).
func fileRefs(data []byte) []string {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return nil
	}
	var refs []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
					file, _, _ := strings.Cut(v.Value, "#")
					if file != "" && !strings.Contains(file, "://") && !path.IsAbs(file) {
						refs = append(refs, file)
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	return refs
}

// git runs git with args in the current directory and returns its output;
// the error carries what git printed.
func git(ctx context.Context, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if msg := strings.TrimSpace(strings.TrimPrefix(stderr.String(), "fatal: ")); errors.As(err, &exit) && msg != "" {
			return nil, errors.New(msg)
		}
		return nil, err
	}
	return out, nil
}

// name returns how a position's file is shown: the root spec as the user
// gave it (REV:path), another file of the revision as REV:path inside the
// repository. For GitHub annotations, which point into the checked-out
// tree, a revision's files are named by their path relative to the current
// directory, as a working file given on the command line is.
func (s *side) name(file string, annotation bool) string {
	if s.dir == "" || file == "" {
		return file
	}
	rel, err := filepath.Rel(s.dir, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	rel = filepath.ToSlash(rel)
	switch {
	case annotation:
		if local, err := filepath.Rel(filepath.FromSlash(s.prefix), filepath.FromSlash(rel)); err == nil {
			return local
		}
		return rel
	case rel == s.rel:
		return s.arg
	default:
		return s.rev + ":" + rel
	}
}

// rewrite replaces the temporary directory in the loader's messages with
// the names name gives.
func (s *side) rewrite(msg string) string {
	if s.dir == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, s.file, s.arg)
	return strings.ReplaceAll(msg, s.dir+string(filepath.Separator), s.rev+":")
}

// close removes the temporary directory of a revision.
func (s *side) close() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
