package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/spec"
)

// keyHashSecretEnv names the environment variable that holds the
// service's idem.Config.KeyHashSecret, with which ops shows keys as the
// executor's logs do (key_hash).
const keyHashSecretEnv = "IDEMGEN_KEY_HASH_SECRET"

// opsFlags are the flags every ops command has.
type opsFlags struct {
	schema   string
	format   string
	showKeys bool
	spec     string
	overlays []string
}

func (f *opsFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.schema, "schema", "", `schema of the runtime's tables ("" follows the connection's search_path)`)
	cmd.Flags().StringVar(&f.format, "format", "table", "output: table (for people) or json (for scripts)")
	cmd.Flags().StringVar(&f.spec, "spec", "", "the service's OpenAPI spec: the fields its schemas mark writeOnly or format: password are hidden in payloads and answers too")
	cmd.Flags().StringArrayVar(&f.overlays, "overlay", nil, "with --spec, an overlay to apply to it; repeat for several")
}

// secretFields returns the fields --spec marks as secrets; none without
// --spec.
func (f *opsFlags) secretFields(ctx context.Context) ([]string, error) {
	if f.spec == "" {
		if len(f.overlays) > 0 {
			return nil, &exitError{code: exitUnusable, err: errors.New("--overlay applies to the spec --spec names: pass --spec too")}
		}
		return nil, nil
	}
	doc, err := spec.Load(ctx, f.spec, spec.LoadOptions{Overlays: f.overlays})
	if err != nil {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("ops: --spec: %w", err)}
	}
	return doc.SecretFields(), nil
}

// registerShowKeys adds --show-keys to a command that shows keys.
func (f *opsFlags) registerShowKeys(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.showKeys, "show-keys", false, "show idempotency keys in clear (by default only their keyed hash)")
}

// errDatabaseURLUnset says what ops needs when DATABASE_URL is unset.
var errDatabaseURLUnset = errors.New("ops: DATABASE_URL is not set: set it to the service's database, such as " +
	"DATABASE_URL='postgres://user@127.0.0.1:5432/orders?sslmode=disable' (the quick start's example prints the URL of the " +
	"database it started), and pass --schema when the runtime's tables are not on its search_path")

// opsSession is an ops command's connection to DATABASE_URL and the
// support library on it.
type opsSession struct {
	pool   *pgxpool.Pool
	ops    *idemops.Client
	hashed bool   // keys are shown hashed: IDEMGEN_KEY_HASH_SECRET is set
	schema string // --schema
}

// connect checks the flags and opens the support library on DATABASE_URL.
// The pool connects on the first query, so arguments the library refuses
// are reported without a connection. A command that shows keys without
// IDEMGEN_KEY_HASH_SECRET says on stderr why no key hash is shown.
func (f *opsFlags) connect(ctx context.Context) (*opsSession, error) {
	if f.format != "table" && f.format != "json" {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("--format %q: want table or json", f.format)}
	}
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return nil, &exitError{code: exitUnusable, err: errDatabaseURLUnset}
	}
	secrets, err := f.secretFields(ctx)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("ops: DATABASE_URL: %w", err)}
	}
	secret := os.Getenv(keyHashSecretEnv)
	ops, err := idemops.New(pool, idemops.Config{Schema: f.schema, KeyHashSecret: []byte(secret), ShowKeys: f.showKeys, SecretFields: secrets})
	if err != nil {
		pool.Close()
		return nil, &exitError{code: exitInternal, err: err}
	}
	return &opsSession{pool: pool, ops: ops, hashed: secret != "", schema: f.schema}, nil
}

// noteUnhashed says on stderr, once per command, why keys show no hash.
func (s *opsSession) noteUnhashed(stderr io.Writer, showKeys bool) {
	if !s.hashed && !showKeys {
		fmt.Fprintf(stderr, "idemgen: note: %s is not set, so keys are shown as -; set it to the service's idem.Config.KeyHashSecret "+
			"to see the key_hash its logs print, or pass --show-keys to see keys in clear\n", keyHashSecretEnv)
	}
}

// fail is the exit error of an ops command whose library call failed:
// every failure, refused arguments and database errors alike, is unusable
// input (a wrong id, key, state, --schema or DATABASE_URL). When the
// runtime's tables are not found it says where it looked and what to
// pass.
func (s *opsSession) fail(ctx context.Context, command string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "idemops: ")
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		where := fmt.Sprintf("in the schema %q that --schema names", s.schema)
		if s.schema == "" {
			var path string
			if s.pool.QueryRow(ctx, "SHOW search_path").Scan(&path) != nil {
				path = "unknown"
			}
			where = fmt.Sprintf("on the connection's search_path (%s), which ops searches without --schema", path)
		}
		msg += fmt.Sprintf("\nhint: the runtime's tables are not %s: pass --schema with the schema the service's "+
			"idem.Config.Schema names (the quick start's example uses --schema idempotency)", where)
	}
	return &exitError{code: exitUnusable, err: fmt.Errorf("ops %s: %s", command, msg)}
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// utc formats t for support output.
func utc(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// orDash shows "" as -, and any other text as esc does.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return esc(s)
}

// esc is text from the database as the terminal may receive it: every
// control character (an escape sequence's ESC, a carriage return that
// would overwrite a line, a newline that would forge one), bidirectional
// formatting character and invalid byte written as a Go escape (\x1b,
// \u202e), so that text another client stored cannot drive the terminal
// or forge a line of the table.
func esc(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"): // an invalid byte
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			if r < 0x80 {
				fmt.Fprintf(&b, "\\x%02x", r)
			} else {
				fmt.Fprintf(&b, "\\u%04x", r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// timePtr is t for JSON: nil when zero, so that it is left out.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
