package idemops

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// parseKey reads a key to look for in either form a client sends it:
// a bare token or a Structured Field string ("abc"); "" is no key.
func parseKey(value string) (pgtype.Text, error) {
	if value == "" {
		return pgtype.Text{}, nil
	}
	key, err := idemkey.Parse(value, 0)
	if err != nil {
		why := strings.TrimPrefix(err.Error(), idemkey.ErrMalformed.Error()+": ")
		return pgtype.Text{}, invalid(fmt.Sprintf("key %q is malformed: %s; write it as the client sent it: a bare token of visible ASCII characters (abc) or a Structured Field string (\"abc\")", value, why), err)
	}
	return pgtype.Text{String: key, Valid: true}, nil
}

// shownKey is a key as c shows it: in clear only with ShowKeys, and as the
// logs' keyed hash when c has the deployment's secret.
func (c *Client) shownKey(scope, key string) (clear, hash string) {
	if key == "" {
		return "", ""
	}
	if c.cfg.ShowKeys {
		clear = key
	}
	if len(c.cfg.KeyHashSecret) > 0 {
		hash = idemkey.Hash(c.cfg.KeyHashSecret, scope, key)
	}
	return clear, hash
}

// parseOperationID reads an operation id (a UUID); "" is no id.
func parseOperationID(id string) (pgtype.UUID, error) {
	var u pgtype.UUID
	if id == "" {
		return u, nil
	}
	if err := u.Scan(id); err != nil {
		return u, invalid(fmt.Sprintf("operation id %q is not a UUID", id), err)
	}
	return u, nil
}
