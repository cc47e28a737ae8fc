package generator

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"

	"github.com/idemgen/idemgen/runtime/schema/steps"
	"github.com/idemgen/idemgen/templates"
)

// sqlcPackage is the Go package sqlc generates the support queries into.
const sqlcPackage = "idemdb"

// maxIdentifier is PostgreSQL's limit on an identifier, in bytes; a longer
// name is silently truncated.
const maxIdentifier = 63

// migrationData is what a migration template prints for one step.
type migrationData struct {
	Heading string // the step's title, capitalised
	Title   string // the step's title
	Schema  string // the schema's name as it may appear in a comment; "" for the search_path
	Up      string // the step's DDL, after the statements that select the schema
	Down    string // the step's revert, likewise
}

// emitSQL renders one migration per step of the runtime's schema, in
// opts.Migrations' format, and the sqlc files. The DDL is the runtime
// store's own, so generated migrations always match what the executor
// queries. Step 1 keeps the file names and bytes that v0.1.0 released.
func emitSQL(opts Options) ([]File, error) {
	if err := checkSchemaName(opts.Schema); err != nil {
		return nil, err
	}
	var files []File
	add := func(dir, name, tmpl string, data any) error {
		content, err := renderTemplate(tmpl, data)
		if err != nil {
			return err
		}
		files = append(files, File{Path: path.Join(dir, name), Content: content})
		return nil
	}
	for _, s := range steps.All() {
		data := stepData(opts.Schema, s)
		var err error
		switch opts.Migrations {
		case MigrationsGoose:
			err = add(opts.MigrationsDir, fmt.Sprintf("%05d_%s.sql", s.Number, s.Name), "migration_goose.sql.tmpl", data)
		case MigrationsMigrate:
			err = add(opts.MigrationsDir, fmt.Sprintf("%06d_%s.up.sql", s.Number, s.Name), "migration_up.sql.tmpl", data)
			if err == nil {
				err = add(opts.MigrationsDir, fmt.Sprintf("%06d_%s.down.sql", s.Number, s.Name), "migration_down.sql.tmpl", data)
			}
		case MigrationsPlain:
			err = add(opts.MigrationsDir, fmt.Sprintf("%05d_%s.sql", s.Number, s.Name), "migration_up.sql.tmpl", data)
		}
		if err != nil {
			return nil, err
		}
	}
	if opts.SQLCDir != "" {
		sqlc := struct{ DDL, Package string }{strings.TrimSpace(steps.SQL()), sqlcPackage}
		for _, f := range [][2]string{
			{"sqlc.yaml", "sqlc.yaml.tmpl"},
			{"schema.sql", "sqlc_schema.sql.tmpl"},
			{"queries.sql", "sqlc_queries.sql.tmpl"},
		} {
			if err := add(opts.SQLCDir, f[0], f[1], sqlc); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

// stepData lays out step s for the schema named name. With a name, each
// migration selects the schema for its own transaction: step 1 creates it
// and sets the search_path to it, as v0.1.0 released it; later steps put it
// in front of the search_path instead, so that a tool's own table stays
// reachable (goose records the version in the migration's transaction,
// with an unqualified goose_db_version by default).
func stepData(name string, s steps.Step) migrationData {
	up, down := strings.TrimSpace(s.Up), strings.TrimSpace(s.Down)
	ident := quoteIdentifier(name)
	switch {
	case name == "": // the search_path's schema: the DDL as it is
	case s.Number == 1:
		setPath := "SELECT set_config('search_path', " + quoteLiteral(ident) + ", true);\n"
		up, down = "CREATE SCHEMA IF NOT EXISTS "+ident+";\n"+setPath+up, setPath+down
	default:
		setPath := "SELECT set_config('search_path', " + quoteLiteral(ident+", ") + " || current_setting('search_path'), true);\n"
		up, down = setPath+up, setPath+down
	}
	heading := s.Title
	if r, n := utf8.DecodeRuneInString(heading); n > 0 {
		heading = string(unicode.ToUpper(r)) + heading[n:]
	}
	return migrationData{Heading: heading, Title: s.Title, Schema: commentName(name), Up: up, Down: down}
}

// checkSchemaName refuses a schema name PostgreSQL cannot hold as given.
func checkSchemaName(name string) error {
	switch {
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("generator: schema %q: a NUL byte cannot be in a PostgreSQL identifier", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("generator: schema %q: a control character (such as a line break) would reach the migrations and SQL, where tools such as goose refuse it", name)
	case len(name) > maxIdentifier:
		return fmt.Errorf("generator: schema %q: %d bytes, PostgreSQL truncates identifiers to %d", name, len(name), maxIdentifier)
	case !utf8.ValidString(name):
		return fmt.Errorf("generator: schema %q: not valid UTF-8", name)
	}
	return nil
}

// plainName matches a schema name that can stand in an SQL comment as it is.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// commentName is name as it may appear in an SQL `--` comment: a plain
// name as it is, any other Go-quoted, so that no line break (or anything
// else unprintable) in it can end the comment.
func commentName(name string) string {
	if name == "" || plainName.MatchString(name) {
		return name
	}
	return strconv.QuoteToASCII(name)
}

// renderTemplate executes one embedded template.
func renderTemplate(name string, data any) ([]byte, error) {
	t, err := template.ParseFS(templates.FS, name)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// quoteIdentifier quotes name as an SQL identifier, as pgx's
// Identifier.Sanitize does (checkSchemaName has refused a NUL byte).
func quoteIdentifier(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
