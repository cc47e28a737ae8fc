package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// cleanupTimeout bounds dropping a test's schema or database.
const cleanupTimeout = 30 * time.Second

// ConnString creates a schema of the test's own and returns a connection
// string whose search_path is that schema. Pools opened on it see only that
// schema's tables (and pg_catalog), so tests run in parallel without
// touching each other. The schema is dropped when the test ends.
func ConnString(tb testing.TB) string {
	tb.Helper()
	base := URL(tb)
	name := isolatedName(tb)
	admin(tb, base, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize())
	tb.Cleanup(func() { admin(tb, base, "DROP SCHEMA "+pgx.Identifier{name}.Sanitize()+" CASCADE") })
	return withParam(base, "search_path", name)
}

// Database creates a database of the test's own and returns a connection
// string for it; use it where a test needs more than one schema. The
// database is dropped, with any sessions still on it, when the test ends.
func Database(tb testing.TB) string {
	tb.Helper()
	base := URL(tb)
	name := isolatedName(tb)
	admin(tb, base, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	tb.Cleanup(func() { admin(tb, base, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)") })
	return withParam(base, "dbname", name)
}

// Pool opens a connection pool on a fresh schema of the test's own (see
// ConnString) and closes it when the test ends.
func Pool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	pool, err := pgxpool.New(context.Background(), ConnString(tb))
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// admin runs one statement on its own connection to the server.
func admin(tb testing.TB, connString, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		tb.Fatalf("pgtest: connecting to %s: %v", redact(connString), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// isolatedName derives a schema or database name from the test's name plus
// random hex, within PostgreSQL's 63-byte identifier limit.
func isolatedName(tb testing.TB) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(tb.Name()) {
		if b.Len() >= 40 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(suffix[:]))
	return b.String()
}

// withParam sets one parameter in a URL or keyword/value connection string.
func withParam(connString, key, value string) string {
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		if err == nil {
			if key == "dbname" {
				u.Path = "/" + value
			} else {
				q := u.Query()
				q.Set(key, value)
				u.RawQuery = q.Encode()
			}
			return u.String()
		}
	}
	return fmt.Sprintf("%s %s=%s", connString, key, value)
}

// redact hides a password in a connection string for error messages.
func redact(connString string) string {
	if u, err := url.Parse(connString); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	return connString
}
