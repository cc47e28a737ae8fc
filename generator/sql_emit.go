package generator

import (
	"bytes"
	"path"
	"strings"
	"text/template"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/schema"
	"github.com/idemgen/idemgen/templates"
)

// sqlcPackage is the Go package sqlc generates the support queries into.
const sqlcPackage = "idemdb"

// emitSQL renders the migrations and the sqlc files. The DDL is the
// runtime store's own, so generated migrations always match what the
// executor queries.
func emitSQL(opts Options) ([]File, error) {
	ddl, err := schema.SchemaSQL()
	if err != nil {
		return nil, err
	}
	ddl = strings.TrimSpace(ddl)
	up, down := ddl, schema.DropSQL()
	if opts.Schema != "" {
		ident := pgx.Identifier{opts.Schema}.Sanitize()
		setPath := "SELECT set_config('search_path', " + quoteLiteral(ident) + ", true);\n"
		up = "CREATE SCHEMA IF NOT EXISTS " + ident + ";\n" + setPath + ddl
		down = setPath + down
	}
	data := struct{ Schema, Up, Down, DDL, Package string }{opts.Schema, up, down, ddl, sqlcPackage}
	var files []File
	add := func(dir, name, tmpl string) error {
		content, err := renderTemplate(tmpl, data)
		if err != nil {
			return err
		}
		files = append(files, File{Path: path.Join(dir, name), Content: content})
		return nil
	}
	var steps [][3]string
	switch opts.Migrations {
	case MigrationsGoose:
		steps = append(steps, [3]string{opts.MigrationsDir, "00001_idemgen.sql", "migration_goose.sql.tmpl"})
	case MigrationsMigrate:
		steps = append(steps,
			[3]string{opts.MigrationsDir, "000001_idemgen.up.sql", "migration_up.sql.tmpl"},
			[3]string{opts.MigrationsDir, "000001_idemgen.down.sql", "migration_down.sql.tmpl"})
	case MigrationsPlain:
		steps = append(steps, [3]string{opts.MigrationsDir, "idemgen.sql", "migration_up.sql.tmpl"})
	}
	if opts.SQLCDir != "" {
		steps = append(steps,
			[3]string{opts.SQLCDir, "sqlc.yaml", "sqlc.yaml.tmpl"},
			[3]string{opts.SQLCDir, "schema.sql", "sqlc_schema.sql.tmpl"},
			[3]string{opts.SQLCDir, "queries.sql", "sqlc_queries.sql.tmpl"})
	}
	for _, s := range steps {
		if err := add(s[0], s[1], s[2]); err != nil {
			return nil, err
		}
	}
	return files, nil
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

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
