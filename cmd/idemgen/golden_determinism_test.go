package main

import (
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/generator"
)

// TestGoldenDeterministic runs the generate or types command of every
// case three times, twice on its spec and once on a copy whose paths,
// webhooks and the methods of each are in shuffled order, and requires
// the same files byte for byte and the same exit code. Only the
// transcripts may differ: their positions point into the shuffled copy.
func TestGoldenDeterministic(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	rng := rand.New(rand.NewPCG(1, 2))
	reordered := 0
	for _, c := range goldenCases(t) {
		if c.opts.Generate == nil && c.opts.Types == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			shuffled, moved := shuffledCase(t, c, rng)
			if moved {
				reordered++
			}
			first := deterministicOutput(t, c, c.spec)
			for _, run := range []struct{ name, spec string }{{"again", c.spec}, {"shuffled", shuffled}} {
				got := deterministicOutput(t, c, run.spec)
				for _, name := range slices.Sorted(maps.Keys(first)) {
					if diff := generator.Diff(name, run.name, []byte(first[name]), []byte(got[name])); diff != "" {
						t.Errorf("%s run: %s differs from the first run:\n%s", run.name, name, diff)
					}
				}
				for _, name := range slices.Sorted(maps.Keys(got)) {
					if _, ok := first[name]; !ok {
						t.Errorf("%s run: %s, which the first run did not produce", run.name, name)
					}
				}
			}
		})
	}
	if reordered == 0 {
		t.Error("no case has two operations to shuffle: the test shows nothing")
	}
	t.Logf("%d cases with operations in a new order", reordered)
}

// deterministicOutput runs the case's generate or types command on
// specPath and returns what must not depend on the order of the spec: the
// files generated or planned, and the exit code, or the name of the types
// error file, under the key "exit".
func deterministicOutput(t *testing.T, c goldenCase, specPath string) map[string]string {
	t.Helper()
	if c.opts.Generate != nil {
		_, code, files := generateCase(t, c, specPath)
		files["exit"] = strconv.Itoa(code)
		return files
	}
	files := typesCase(t, c, specPath)
	if _, ok := files["types.txt"]; ok {
		return map[string]string{"exit": "types.txt"}
	}
	return files
}

// shuffledCase copies the case directory without want into a temporary
// directory, so that relative $refs resolve as before, with the paths and
// webhooks of the spec, and the entries of each, in shuffled order. It
// returns the copy's spec and whether any order changed. A JSON spec is
// written back as YAML under its name, which the loader reads by content.
func shuffledCase(t *testing.T, c goldenCase, rng *rand.Rand) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(c.dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == wantDir {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.spec)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", c.spec, err)
	}
	moved := false
	if len(doc.Content) == 1 {
		for _, key := range []string{"paths", "webhooks"} {
			items := mappingValue(doc.Content[0], key)
			moved = shuffleMapping(items, rng) || moved
			if items == nil {
				continue
			}
			for i := 1; i < len(items.Content); i += 2 {
				moved = shuffleMapping(items.Content[i], rng) || moved
			}
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, filepath.Base(c.spec))
	if err := os.WriteFile(spec, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return spec, moved
}

// mappingValue returns the value of key in the mapping node m, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// shuffleMapping puts the entries of the mapping node m in an order other
// than the one they have, when there are two or more, and reports whether
// it did.
func shuffleMapping(m *yaml.Node, rng *rand.Rand) bool {
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content) < 4 {
		return false
	}
	n := len(m.Content) / 2
	perm := rng.Perm(n)
	for slices.IsSorted(perm) {
		perm = rng.Perm(n)
	}
	content := make([]*yaml.Node, 0, len(m.Content))
	for _, i := range perm {
		content = append(content, m.Content[2*i], m.Content[2*i+1])
	}
	m.Content = content
	return true
}
