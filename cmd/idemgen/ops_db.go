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

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/runtime/idemops"
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
}

func (f *opsFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.schema, "schema", "", `schema of the runtime's tables ("" follows the connection's search_path)`)
	cmd.Flags().StringVar(&f.format, "format", "table", "output: table (for people) or json (for scripts)")
}

// registerShowKeys adds --show-keys to a command that shows keys.
func (f *opsFlags) registerShowKeys(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.showKeys, "show-keys", false, "show idempotency keys in clear (by default only their keyed hash)")
}

// opsSession is an ops command's connection to DATABASE_URL and the
// support library on it.
type opsSession struct {
	pool   *pgxpool.Pool
	ops    *idemops.Client
	hashed bool // keys are shown hashed: IDEMGEN_KEY_HASH_SECRET is set
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
		return nil, &exitError{code: exitUnusable, err: errors.New("ops: DATABASE_URL is not set")}
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("ops: DATABASE_URL: %w", err)}
	}
	secret := os.Getenv(keyHashSecretEnv)
	ops, err := idemops.New(pool, idemops.Config{Schema: f.schema, KeyHashSecret: []byte(secret), ShowKeys: f.showKeys})
	if err != nil {
		pool.Close()
		return nil, &exitError{code: exitInternal, err: err}
	}
	return &opsSession{pool: pool, ops: ops, hashed: secret != ""}, nil
}

// noteUnhashed says on stderr, once per command, why keys show no hash.
func (s *opsSession) noteUnhashed(stderr io.Writer, showKeys bool) {
	if !s.hashed && !showKeys {
		fmt.Fprintf(stderr, "idemgen: note: %s is not set, so keys are shown as -; set it to the service's idem.Config.KeyHashSecret "+
			"to see the key_hash its logs print, or pass --show-keys to see keys in clear\n", keyHashSecretEnv)
	}
}

// opsError is the exit error of an ops command whose library call failed:
// every failure, refused arguments and database errors alike, is unusable
// input (a wrong id, key, state, --schema or DATABASE_URL).
func opsError(command string, err error) error {
	return &exitError{code: exitUnusable, err: fmt.Errorf("ops %s: %s", command, strings.TrimPrefix(err.Error(), "idemops: "))}
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

// orDash shows "" as -.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// timePtr is t for JSON: nil when zero, so that it is left out.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
