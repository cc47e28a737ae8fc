package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
)

// opsFlags are the flags every ops command has.
type opsFlags struct {
	schema string
	format string
}

func (f *opsFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.schema, "schema", "", `schema of the runtime's tables ("" follows the connection's search_path)`)
	cmd.Flags().StringVar(&f.format, "format", "table", "output: table (for people) or json (for scripts)")
}

// connect checks the flags and connects to DATABASE_URL.
func (f *opsFlags) connect(ctx context.Context) (*pgx.Conn, error) {
	if f.format != "table" && f.format != "json" {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("--format %q: want table or json", f.format)}
	}
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return nil, &exitError{code: exitUnusable, err: errors.New("ops: DATABASE_URL is not set")}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, &exitError{code: exitUnusable, err: fmt.Errorf("ops: connecting to DATABASE_URL: %w", err)}
	}
	return conn, nil
}

// opsTables matches the runtime's tables in the support SQL.
var opsTables = regexp.MustCompile(`\bidempotency_(record|outbox|effect_attempt|effect_audit)\b`)

// qualify names the tables of sql in schema.
func (f *opsFlags) qualify(sql string) string {
	if f.schema == "" {
		return sql
	}
	return opsTables.ReplaceAllStringFunc(sql, func(t string) string { return pgx.Identifier{f.schema, t}.Sanitize() })
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// keyShown is an idempotency key as support shows it: a hash unless the
// keys were asked for (a key can be a secret of the client's).
func keyShown(key string, show bool) string {
	switch {
	case key == "":
		return ""
	case show:
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// effectRef is an effect named by its key: <operation id>/<effect>/<seq>.
type effectRef struct {
	operationID string
	seq         int
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func parseEffectKey(key string) (effectRef, error) {
	id, rest, ok := strings.Cut(key, "/")
	i := strings.LastIndexByte(rest, '/')
	if !ok || i < 0 || !uuidPattern.MatchString(id) {
		return effectRef{}, &exitError{code: exitUnusable, err: fmt.Errorf("effect key %q: want <operation id>/<effect>/<seq>, as ops list shows it", key)}
	}
	seq, err := strconv.Atoi(rest[i+1:])
	if err != nil || seq < 1 {
		return effectRef{}, &exitError{code: exitUnusable, err: fmt.Errorf("effect key %q: the sequence number after the last / is not a positive integer", key)}
	}
	return effectRef{operationID: id, seq: seq}, nil
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

// effectStateSQL is the state support shows: pending while leased is
// running.
const effectStateSQL = `CASE WHEN o.state = 'pending' AND o.lease_until IS NOT NULL THEN 'running' ELSE o.state END`
