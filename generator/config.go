package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/confine"
	"github.com/idemgen/idemgen/spec"
)

// Config is an idemgen.yaml file, the configuration `idemgen generate
// --config` reads:
//
//	specs: [openapi.yaml]
//	package: shop
//	out: .
//	schema: idempotency
//	migrations: {format: goose, dir: migrations}
//	sqlc: sqlc
//	tests: true
//
// Paths are relative to the file's directory.
type Config struct {
	// Dir is the directory of the configuration file: spec and overlay
	// paths are relative to it.
	Dir string
	// Root is where the generated paths (Options' directories) are
	// relative to; "" means Dir. LoadConfig leaves it empty.
	Root     string
	Specs    []string
	Overlays []string
	// Load holds the loader's options besides the overlays (which Overlays
	// names relative to Dir): what an unmatched overlay action is and what
	// $refs may read.
	Load    spec.LoadOptions
	Options Options
}

// configKeys are the known top-level keys, for did-you-mean hints.
var configKeys = []string{"specs", "overlays", "package", "out", "schema", "migrations", "sqlc", "tests"}

// LoadConfig reads an idemgen.yaml file. Errors carry positions.
func LoadConfig(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, &spec.Error{Pos: spec.Position{File: path}, Msg: "not YAML: " + err.Error()}
	}
	c := &Config{Dir: filepath.Dir(path), Options: Options{GoDir: "."}}
	d := &configDecoder{file: path, dir: c.Dir}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &spec.Error{Pos: spec.Position{File: path, Line: 1, Col: 1}, Msg: "want a mapping with specs, package and out"}
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "specs":
			c.Specs = d.paths(v, "specs")
		case "overlays":
			c.Overlays = d.paths(v, "overlays")
		case "package":
			c.Options.Package = d.str(v, "package")
		case "out":
			c.Options.GoDir = d.outputDir(v, "out")
		case "schema":
			c.Options.Schema = d.str(v, "schema")
		case "sqlc":
			c.Options.SQLCDir = d.outputDir(v, "sqlc")
		case "tests":
			c.Options.Tests = d.boolean(v, "tests")
		case "migrations":
			d.migrations(v, &c.Options)
		default:
			d.errorf(k, k.Value, "unknown key%s", spec.Suggest(k.Value, configKeys))
		}
	}
	if len(c.Specs) == 0 && len(d.errs) == 0 {
		d.errorf(m, "specs", "no specs: list the OpenAPI files to generate from")
	}
	if c.Options.Package == "" && len(d.errs) == 0 {
		d.errorf(m, "package", "no package: name the Go package of the generated code")
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return c, nil
}

// configDecoder collects positioned errors while reading a configuration.
type configDecoder struct {
	// file is the configuration's path, dir its directory.
	file, dir string
	errs      spec.ErrorList
}

func (d *configDecoder) errorf(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &spec.Error{Pos: spec.Position{File: d.file, Line: n.Line, Col: n.Column}, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// str reads a non-empty string without control characters: every string
// of the configuration reaches a file name, a file or SQL (a schema name
// with a line break in it made goose refuse the migration).
func (d *configDecoder) str(n *yaml.Node, path string) string {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		d.errorf(n, path, "want a non-empty string")
		return ""
	}
	if i := strings.IndexFunc(n.Value, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(n.Value[i:])
		d.errorf(n, path, "%q holds the control character %U: it would reach file names, generated files or SQL; remove it", n.Value, r)
		return ""
	}
	return n.Value
}

// outputDir reads a relative output directory, which must stay inside the
// configuration's directory once symbolic links are resolved: the
// repository of a pull request could otherwise point a link in it at a
// directory elsewhere and receive the generated files there.
func (d *configDecoder) outputDir(n *yaml.Node, key string) string {
	p := d.path(n, key)
	if p == "" {
		return ""
	}
	dir, err := filepath.Abs(d.dir)
	if err != nil {
		return p
	}
	realDir, err1 := confine.Real(dir)
	real, err2 := confine.Real(filepath.Join(dir, filepath.FromSlash(p)))
	if err1 == nil && err2 == nil && !confine.Below(real, realDir) {
		d.errorf(n, key, "%q leads out of the configuration's directory through a symbolic link (to %s); give a directory inside it", p, real)
		return ""
	}
	return p
}

// path reads a slash-separated relative path.
func (d *configDecoder) path(n *yaml.Node, key string) string {
	p := d.str(n, key)
	if p == "" {
		return ""
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if filepath.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") {
		d.errorf(n, key, "%q leaves the configuration's directory; give a path inside it", p)
		return ""
	}
	return clean
}

func (d *configDecoder) paths(n *yaml.Node, key string) []string {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, key, "want a list of paths")
		return nil
	}
	var out []string
	for i, e := range n.Content {
		if p := d.path(e, fmt.Sprintf("%s[%d]", key, i)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (d *configDecoder) boolean(n *yaml.Node, path string) bool {
	if n.Kind != yaml.ScalarNode || (n.Value != "true" && n.Value != "false") {
		d.errorf(n, path, "want true or false")
		return false
	}
	return n.Value == "true"
}

func (d *configDecoder) migrations(n *yaml.Node, o *Options) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "migrations", "want a mapping with format and dir")
		return
	}
	formats := []string{string(MigrationsGoose), string(MigrationsMigrate), string(MigrationsPlain)}
	o.MigrationsDir = "migrations"
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "format":
			f := d.str(v, "migrations.format")
			if f != "" && !slices.Contains(formats, f) {
				d.errorf(v, "migrations.format", "unknown format %q (want %s)", f, strings.Join(formats, ", "))
			}
			o.Migrations = MigrationFormat(f)
		case "dir":
			o.MigrationsDir = d.outputDir(v, "migrations.dir")
		default:
			d.errorf(k, "migrations."+k.Value, "unknown key%s", spec.Suggest(k.Value, []string{"format", "dir"}))
		}
	}
	if o.Migrations == "" {
		d.errorf(n, "migrations.format", "no format (want goose, golang-migrate or plain)")
	}
}
