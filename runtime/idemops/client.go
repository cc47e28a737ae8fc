package idemops

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/idemops/internal/sqlcdb"
	"github.com/idemgen/idemgen/runtime/internal/tables"
)

// DB is the connection a Client works on: a *pgxpool.Pool, a *pgx.Conn,
// or a pgx.Tx (the actions then run in a savepoint of it).
type DB interface {
	Begin(ctx context.Context) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Config configures a Client.
type Config struct {
	// Schema is the schema of the runtime's tables, as the service's
	// idem.Config.Schema; "" follows the search_path.
	Schema string
	// KeyHashSecret is the service's idem.Config.KeyHashSecret: keys are
	// shown as the keyed hash the executor logs as key_hash, so a log line
	// and a support view name a key alike. Without it no hash is shown
	// (KeyHash is ""): a service without a secret hashes with a random one
	// per process, which no other process can reproduce.
	KeyHashSecret []byte
	// ShowKeys shows idempotency keys in clear besides their hash. Keys can
	// be secrets of the client's: ask for them only where the viewer may
	// see them.
	ShowKeys bool
	// SecretFields names JSON fields whose values are hidden wherever they
	// appear in a payload or stored answer, besides those Redact hides by
	// their names: the fields the service's spec marks writeOnly or
	// format: password, which a generated package lists as its
	// SecretFields (and `idemgen ops --spec` reads from the spec).
	SecretFields []string
}

// DefaultLimit is how many rows a list returns when its filter sets no
// Limit.
const DefaultLimit = 100

// maxRows is the LIMIT of a read that wants every row (an operation's
// effects and their audit entries).
const maxRows = math.MaxInt32

// Client reads and acts on the runtime's tables for support. It is
// immutable and safe for concurrent use when its DB is (a pool is).
type Client struct {
	db     DB
	schema *tables.Schema
	q      *sqlcdb.Queries
	cfg    Config
	// secrets is cfg.SecretFields as a set.
	secrets map[string]bool
}

// New returns a Client working on db with cfg.
func New(db DB, cfg Config) (*Client, error) {
	if db == nil {
		return nil, errors.New("idemops: New needs a database connection")
	}
	s := tables.NewSchema(cfg.Schema)
	c := &Client{db: db, schema: s, q: sqlcdb.New(s.On(db)), cfg: cfg}
	for _, name := range cfg.SecretFields {
		if c.secrets == nil {
			c.secrets = map[string]bool{}
		}
		c.secrets[name] = true
	}
	return c, nil
}

// limit is the LIMIT of a list with limit n.
func limit(n int) (int32, error) {
	switch {
	case n == 0:
		return DefaultLimit, nil
	case n < 0 || n > maxRows:
		return 0, invalid("limit must be between 1 and 2147483647", nil)
	}
	return int32(n), nil
}

// text is s as an optional text parameter: "" is NULL, no filter.
func text(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

// interval is d as an optional interval parameter: 0 is NULL, no filter.
func interval(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: d != 0}
}

// utc is t in UTC; the zero time for NULL.
func utc(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}
