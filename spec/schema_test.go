package spec

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v4"
)

// The JSON Schemas in docs/ that editors use.
const (
	blockSchemaFile   = "../docs/x-idempotency.schema.json"
	docSchemaFile     = "../docs/openapi-x-idempotency.schema.json"
	overlaySchemaFile = "../docs/overlay-x-idempotency.schema.json"
)

// schemaCorpus are the directories whose specs and overlays the schemas are
// tested against: every one, found by walking, so a new test spec is
// covered without being listed.
var schemaCorpus = []string{"../testdata", "../examples", "testdata"}

// shapeMessages start (or, for the pointer one, contain) the decoder's
// messages for a block whose shape is wrong: an unknown field, a value of
// the wrong type, a value outside an enum, a malformed duration or
// pointer, an empty name, a missing effect or step name. The other decode
// errors, such as a body key without a name once merged with the defaults
// or a zero duration, need context or arithmetic a schema does not have.
var shapeMessages = []string{
	"unknown field", "want ", "unknown value", "invalid duration", "must not be empty",
	"must be greater than 0", "an effect needs a name", "a step needs a name", "is not a JSON pointer",
}

// isShapeError reports whether e is a shape error inside a contract block.
func isShapeError(e *Error) bool {
	if !strings.HasPrefix(e.Path, "x-idempotency") {
		return false
	}
	return slices.ContainsFunc(shapeMessages, func(m string) bool {
		return strings.HasPrefix(e.Msg, m) || (m == "is not a JSON pointer" && strings.Contains(e.Msg, m))
	})
}

// TestContractSchema checks docs/x-idempotency.schema.json against
// idemgen's own verdict on every contract block of every spec under
// testdata/ and examples/: each block of a spec that loads, or of a spec
// whose errors lie elsewhere, is accepted; each block that spec.Load
// reports a shape error inside is rejected. The whole-spec schema accepts
// every spec that loads, and the overlay schema every overlay.
func TestContractSchema(t *testing.T) {
	block, doc, overlay := compileSchema(t, blockSchemaFile), compileSchema(t, docSchemaFile), compileSchema(t, overlaySchemaFile)
	var accepted, rejected, overlays int
	for _, file := range schemaFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src, err := parseSource(file, data)
		if err != nil || src.root == nil || src.root.Kind != yaml.MappingNode {
			continue // not YAML or JSON: the decoder never sees a block
		}
		if k, _ := mappingEntry(src.root, "overlay"); k != nil {
			if err := overlay.Validate(jsonValue(src.root)); err != nil {
				t.Errorf("%s: the overlay schema rejects this overlay: %v", file, err)
			}
			overlays++
			continue
		}
		if k, _ := mappingEntry(src.root, "openapi"); k == nil {
			continue
		}
		_, loadErr := Load(context.Background(), file, LoadOptions{})
		var errs ErrorList
		if loadErr != nil && !errors.As(loadErr, &errs) {
			var e *Error
			if errors.As(loadErr, &e) {
				errs = ErrorList{e}
			}
		}
		for _, b := range contractBlocks(src.root) {
			var shape, other []string
			for _, e := range errs {
				if e.Pos.File != file || !b.contains(e.Pos) {
					continue
				}
				if isShapeError(e) {
					shape = append(shape, e.Error())
				} else {
					other = append(other, e.Error())
				}
			}
			verr := block.Validate(jsonValue(b.value))
			switch {
			case len(shape) > 0:
				if verr == nil {
					t.Errorf("%s:%d: the schema accepts the %s block, but idemgen refuses its shape:\n%s", file, b.key.Line, b.key.Value, strings.Join(shape, "\n"))
				}
				rejected++
			case len(other) > 0:
				t.Logf("%s:%d: not a shape error, no verdict for the schema: %s", file, b.key.Line, strings.Join(other, "; "))
			default:
				if verr != nil {
					t.Errorf("%s:%d: the schema rejects the %s block, which idemgen accepts: %v", file, b.key.Line, b.key.Value, verr)
				}
				accepted++
			}
		}
		if loadErr == nil {
			if err := doc.Validate(jsonValue(src.root)); err != nil {
				t.Errorf("%s: the whole-spec schema rejects a spec idemgen loads: %v", file, err)
			}
		}
	}
	t.Logf("%d blocks accepted, %d rejected, %d overlays accepted", accepted, rejected, overlays)
	if accepted < 20 || rejected < 10 || overlays < 3 {
		t.Errorf("%d blocks accepted, %d rejected, %d overlays: too few to test the schemas; is testdata where it was?", accepted, rejected, overlays)
	}
}

// compileSchema compiles the JSON Schema file at path.
func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.NewCompiler().Compile(abs)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return s
}

// schemaFiles lists every YAML and JSON file under schemaCorpus.
func schemaFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range schemaCorpus {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() {
					files = append(files, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// contractBlock is one x-idempotency or x-idempotency-defaults entry of a
// file, with the lines it spans.
type contractBlock struct {
	key, value *yaml.Node
	last       int
}

// contains reports whether pos lies within the block.
func (b contractBlock) contains(pos Position) bool {
	if pos.Line == b.key.Line {
		return pos.Col >= b.key.Column
	}
	return pos.Line > b.key.Line && pos.Line <= b.last
}

// contractBlocks finds every x-idempotency and x-idempotency-defaults
// entry under n, wherever it is written.
func contractBlocks(n *yaml.Node) []contractBlock {
	var out []contractBlock
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Value == "x-idempotency" || k.Value == "x-idempotency-defaults" {
				out = append(out, contractBlock{key: k, value: n.Content[i+1], last: lastLine(n.Content[i+1])})
			}
		}
	}
	for _, c := range n.Content {
		out = append(out, contractBlocks(c)...)
	}
	return out
}

// lastLine is the last line any node under n starts on.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}

// TestSchemaModelines checks that every yaml-language-server modeline in
// the specs and overlays names a schema file that exists, relative to the
// file, as the editor resolves it, and that an overlay's modeline names
// the overlay schema and a spec's the whole-spec one.
func TestSchemaModelines(t *testing.T) {
	const prefix = "# yaml-language-server: $schema="
	found := 0
	for _, file := range schemaFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			ref, ok := strings.CutPrefix(line, prefix)
			if !ok {
				continue
			}
			found++
			target := filepath.Join(filepath.Dir(file), filepath.FromSlash(ref))
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s:%d: the modeline names %s, which does not exist", file, i+1, target)
			}
			want := filepath.Base(docSchemaFile)
			if strings.Contains(string(data), "\noverlay: ") {
				want = filepath.Base(overlaySchemaFile)
			}
			if filepath.Base(ref) != want {
				t.Errorf("%s:%d: the modeline names %s, want %s", file, i+1, filepath.Base(ref), want)
			}
		}
	}
	if found < 4 {
		t.Errorf("%d modelines found, want the orders example's and the overlays'", found)
	}
}
