package migrations_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
	"github.com/idemgen/idemgen/spec"
)

// TestMain stops the throwaway PostgreSQL the tests may start.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// releasedDir holds the migrations v0.1.0 released, generated for schema
// "idempotency" in each format.
const releasedDir = "../../runtime/schema/testdata/v0.1.0"

// releasedSchema is the schema the released migrations were generated for.
const releasedSchema = "idempotency"

// upgrader migrates a database with one tool: install as v0.1.0 did,
// upgrade with what idemgen emits today.
type upgrader struct {
	name             string
	install, upgrade func(t *testing.T, pool *pgxpool.Pool)
}

// A database migrated with v0.1.0's migration and holding completed
// operations upgrades in place with each tool (goose's and golang-migrate's
// own libraries applying the emitted files, and schema.Migrate), and the
// old keys then replay byte for byte.
func TestEmittedMigrationsUpgradeV010(t *testing.T) {
	for _, u := range []upgrader{
		{"goose",
			func(t *testing.T, pool *pgxpool.Pool) {
				gooseUp(t, pool, os.DirFS(filepath.Join(releasedDir, "goose")), 1)
			},
			func(t *testing.T, pool *pgxpool.Pool) {
				gooseUp(t, pool, emittedFS(t, generator.MigrationsGoose), int64(schema.Version))
			}},
		{"golang-migrate",
			func(t *testing.T, pool *pgxpool.Pool) {
				migrateUp(t, pool, os.DirFS(filepath.Join(releasedDir, "golang-migrate")), 1)
			},
			func(t *testing.T, pool *pgxpool.Pool) {
				migrateUp(t, pool, emittedFS(t, generator.MigrationsMigrate), uint(schema.Version))
			}},
		{"schema.Migrate",
			func(t *testing.T, pool *pgxpool.Pool) { execInTx(t, pool, releasedGooseUp(t)) },
			func(t *testing.T, pool *pgxpool.Pool) {
				if err := schema.Migrate(t.Context(), pool, releasedSchema); err != nil {
					t.Fatal(err)
				}
			}},
	} {
		t.Run(u.name, func(t *testing.T) {
			pool := openPool(t, pgtest.Database(t))
			execInTx(t, pool, ordersDDL)
			u.install(t, pool)
			old := completeOperations(t, pool)
			var verr *schema.VersionError
			if err := schema.Require(t.Context(), pool, releasedSchema); !errors.As(err, &verr) || verr.Have != 1 {
				t.Fatalf("before the upgrade: %v, want version 1", err)
			}
			u.upgrade(t, pool)
			if err := schema.Require(t.Context(), pool, releasedSchema); err != nil {
				t.Fatalf("after the upgrade: %v", err)
			}
			h := ordersHandler(t, pool)
			for _, op := range old {
				got := op.send(h)
				if got.Code != op.answer.Code || got.Body.String() != op.answer.Body.String() ||
					got.Header().Get("Location") != op.answer.Header().Get("Location") ||
					got.Header().Get("Idempotent-Replayed") != "true" {
					t.Errorf("%s after the upgrade: %d %q Location %q Idempotent-Replayed %q, want the replay of %d %q Location %q",
						op.key, got.Code, got.Body, got.Header().Get("Location"), got.Header().Get("Idempotent-Replayed"),
						op.answer.Code, op.answer.Body, op.answer.Header().Get("Location"))
				}
			}
			var orders int
			if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM orders").Scan(&orders); err != nil || orders != createdOrders {
				t.Errorf("%d orders (%v), want the %d created before the upgrade: a replay ran the business again", orders, err, createdOrders)
			}
		})
	}
}

// On a fresh database the emitted files install the current schema with
// each tool, and their down migrations remove it again.
func TestEmittedMigrationsInstallAndRemove(t *testing.T) {
	t.Run("goose", func(t *testing.T) {
		pool := openPool(t, pgtest.Database(t))
		fsys := emittedFS(t, generator.MigrationsGoose)
		gooseUp(t, pool, fsys, int64(schema.Version))
		requireVersion(t, pool, schema.Version)
		p, err := goose.NewProvider(goose.DialectPostgres, sqlDB(t, pool), fsys, goose.WithTableName(gooseTable))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.DownTo(t.Context(), 0); err != nil {
			t.Fatalf("goose down: %v", err)
		}
		requireVersion(t, pool, 0)
	})
	t.Run("golang-migrate", func(t *testing.T) {
		pool := openPool(t, pgtest.Database(t))
		m := migrateUp(t, pool, emittedFS(t, generator.MigrationsMigrate), uint(schema.Version))
		requireVersion(t, pool, schema.Version)
		if err := m.Down(); err != nil {
			t.Fatalf("golang-migrate down: %v", err)
		}
		requireVersion(t, pool, 0)
	})
}

// requireVersion fails the test unless schema "idempotency" is at want.
func requireVersion(t *testing.T, pool *pgxpool.Pool, want int) {
	t.Helper()
	err := schema.Require(t.Context(), pool, releasedSchema)
	var verr *schema.VersionError
	switch {
	case want >= schema.Version && err != nil:
		t.Fatalf("at version %d: %v", want, err)
	case want < schema.Version && (!errors.As(err, &verr) || verr.Have != want):
		t.Fatalf("%v, want version %d", err, want)
	}
}

// The emitted files of every format set a schema of any name apart: a
// name with a line separator, quotes and a statement in it is one schema
// (a control character such as a line break is refused before).
func TestEmittedMigrationsHoldAnOddSchemaName(t *testing.T) {
	const name = "x\u2028DROP TABLE orders; -- \"'"
	pool := openPool(t, pgtest.Database(t))
	execInTx(t, pool, ordersDDL)
	for _, f := range emitted(t, name, generator.MigrationsPlain) { // in step order
		if _, err := pool.Exec(t.Context(), string(f.Content)); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
	}
	if err := schema.Require(t.Context(), pool, name); err != nil {
		t.Error(err)
	}
	if _, err := pool.Exec(t.Context(), "SELECT FROM orders"); err != nil {
		t.Errorf("orders: %v", err)
	}
}

// operation is one request made before the upgrade and its answer.
type operation struct {
	key, body string
	answer    *httptest.ResponseRecorder
}

// send makes op's request again on h.
func (op operation) send(h http.Handler) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(op.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", op.key)
	req.Header.Set("X-Tenant", "acme")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// completeOperations runs a created order and a stored rejection through
// the executor on a database that v0.1.0 migrated. Today's executor wants
// the current schema, so the steps after v0.1.0's are applied for the
// requests and reverted, last first, by their own down migrations (they add
// tables and columns the requests do not fill): the database is then
// v0.1.0's again, holding responses the runtime stored.
func completeOperations(t *testing.T, pool *pgxpool.Pool) []operation {
	t.Helper()
	later := schema.Steps()[1:]
	setPath := "SELECT set_config('search_path', 'idempotency', true);\n"
	for _, s := range later {
		execInTx(t, pool, setPath+s.Up)
	}
	h := ordersHandler(t, pool)
	var ops []operation
	for i, body := range []string{`{"customer":"c1","amount":1200}`, `{"customer":"c2","amount":-5}`, `{"customer":"c3","amount":7}`} { // createdOrders orders
		op := operation{key: fmt.Sprintf("old-%d", i), body: body}
		op.answer = op.send(h)
		if op.answer.Code != http.StatusCreated && op.answer.Code != http.StatusBadRequest {
			t.Fatalf("%s: %d %s", op.key, op.answer.Code, op.answer.Body)
		}
		ops = append(ops, op)
	}
	for i := len(later) - 1; i >= 0; i-- {
		execInTx(t, pool, setPath+later[i].Down)
	}
	return ops
}

// createdOrders is how many of completeOperations' requests create an
// order; the other is a stored 400.
const createdOrders = 2

// ordersDDL is the business table of the upgrade tests.
const ordersDDL = "CREATE TABLE public.orders (id bigserial PRIMARY KEY, customer text NOT NULL, amount bigint NOT NULL)"

// ordersHandler is a new instance's createOrder handler: a new executor on
// schema "idempotency", with a business function that inserts an order and
// answers 201 with a Location, or 400 (stored) for a negative amount.
func ordersHandler(t *testing.T, pool *pgxpool.Pool) http.Handler {
	t.Helper()
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: releasedSchema})
	if err != nil {
		t.Fatal(err)
	}
	contract := idemimpl.Contract{
		Operation: "createOrder",
		Method:    http.MethodPost,
		Route:     "/orders",
		Key:       idemimpl.KeySpec{},

		ReplayHeaders: []string{"Location"},
	}
	scope := func(r *http.Request) (string, error) { return r.Header.Get("X-Tenant"), nil }
	h, err := idemimpl.NewHandler(exec, contract, scope, func(ctx context.Context, tx pgx.Tx, _ *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		var in struct {
			Customer string `json:"customer"`
			Amount   int64  `json:"amount"`
		}
		if err := json.Unmarshal(req.Body, &in); err != nil {
			return nil, err
		}
		if in.Amount < 0 {
			return &idemimpl.Response{Status: http.StatusBadRequest, Header: http.Header{"Content-Type": {"application/json"}},
				Body: []byte(`{"error":"amount must not be negative"}`)}, nil
		}
		var id int64
		if err := tx.QueryRow(ctx, "INSERT INTO public.orders (customer, amount) VALUES ($1, $2) RETURNING id", in.Customer, in.Amount).Scan(&id); err != nil {
			return nil, err
		}
		body, _ := json.Marshal(map[string]any{"order_id": id, "customer": in.Customer, "amount": in.Amount})
		return &idemimpl.Response{Status: http.StatusCreated, Body: body, Header: http.Header{
			"Content-Type": {"application/json"}, "Location": {fmt.Sprintf("/orders/%d", id)}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// emittedFS holds the migrations emitted today in format for schema
// "idempotency", as the tool reads its directory.
func emittedFS(t *testing.T, format generator.MigrationFormat) fs.FS {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, f := range emitted(t, releasedSchema, format) {
		fsys[path.Base(f.Path)] = &fstest.MapFile{Data: f.Content}
	}
	return fsys
}

// emitSpec is the spec whose migrations the tests apply: the migrations do
// not depend on its operations.
const emitSpec = `openapi: 3.1.0
info: {title: Orders, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, properties: {customer: {type: string}}}
      responses:
        "201": {description: created}
      x-idempotency: {scope: [tenant], retention: 24h}
`

// emitted returns the migration files idemgen generates today for
// schemaName in format, sorted by path and so in step order.
func emitted(t *testing.T, schemaName string, format generator.MigrationFormat) []generator.File {
	t.Helper()
	file := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(file, []byte(emitSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := spec.Load(t.Context(), file, spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j := generator.Judge(doc, spec.CheckOptions{})
	if j.Plan == nil {
		t.Fatalf("the spec is refused: %v", j.Errors())
	}
	out, err := generator.Generate(j.Plan, generator.Options{
		Package: "orders", GoDir: "orders", Schema: schemaName, Migrations: format, MigrationsDir: "migrations"})
	if err != nil {
		t.Fatal(err)
	}
	var files []generator.File
	for _, f := range out.Files {
		if strings.HasPrefix(f.Path, "migrations/") {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatalf("no %s migrations generated", format)
	}
	return files
}

// sqlDB opens a database/sql handle on pool's database for a tool.
func sqlDB(t *testing.T, pool *pgxpool.Pool) *sql.DB {
	t.Helper()
	db := stdlib.OpenDB(*pool.Config().ConnConfig)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// gooseTable is goose's version table, qualified: v0.1.0's migration sets
// the search_path to its schema for its whole transaction, in which goose
// also records the version, so with a schema it only ever worked with a
// qualified table. (Later steps keep the search_path's other schemas.)
const gooseTable = "public.goose_db_version"

// gooseUp applies fsys's goose migrations with goose's own library and
// requires it to apply exactly the versions after the database's up to
// want: a released file keeps its version.
func gooseUp(t *testing.T, pool *pgxpool.Pool, fsys fs.FS, want int64) {
	t.Helper()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB(t, pool), fsys, goose.WithTableName(gooseTable))
	if err != nil {
		t.Fatal(err)
	}
	before, err := p.GetDBVersion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	results, err := p.Up(t.Context())
	if err != nil {
		t.Fatalf("goose up: %v", err)
	}
	var applied, wantApplied []int64
	for _, r := range results {
		applied = append(applied, r.Source.Version)
	}
	for v := before + 1; v <= want; v++ {
		wantApplied = append(wantApplied, v)
	}
	if !slices.Equal(applied, wantApplied) {
		t.Fatalf("goose applied versions %v, want %v", applied, wantApplied)
	}
}

// migrateUp applies fsys's golang-migrate migrations with golang-migrate's
// own library (pgx/v5 driver, iofs source), requires version want and
// returns the migrator.
func migrateUp(t *testing.T, pool *pgxpool.Pool, fsys fs.FS, want uint) *migrate.Migrate {
	t.Helper()
	src, err := iofs.New(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	driver, err := migratepgx.WithInstance(sqlDB(t, pool), &migratepgx.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		t.Fatalf("golang-migrate up: %v", err)
	}
	if v, dirty, err := m.Version(); err != nil || dirty || v != want {
		t.Fatalf("golang-migrate at version %d (dirty %v, %v), want %d", v, dirty, err, want)
	}
	return m
}

// releasedGooseUp is the Up section of v0.1.0's goose migration.
func releasedGooseUp(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(releasedDir, "goose", "00001_idemgen.sql"))
	if err != nil {
		t.Fatal(err)
	}
	_, up, _ := strings.Cut(string(src), "-- +goose Up\n-- +goose StatementBegin\n")
	up, _, ok := strings.Cut(up, "-- +goose StatementEnd\n")
	if !ok {
		t.Fatal("no Up section in v0.1.0's goose migration")
	}
	return up
}

// execInTx runs sql in one transaction on pool.
func execInTx(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	if err := pgx.BeginFunc(t.Context(), pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(t.Context(), sql)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// openPool opens a pool on connString, closed when the test ends.
func openPool(t *testing.T, connString string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), connString)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
