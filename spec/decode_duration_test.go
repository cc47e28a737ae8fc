package spec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Retention plus tombstone is the time a record is kept; a sum past the
// longest time.Duration is refused at the tombstone's position instead of
// wrapping around to a deadline in the past.
func TestRetentionPlusTombstoneOverflow(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "good-minimal", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "x-idempotency: {}", "x-idempotency: {retention: 100000d, tombstone: 10000d}", 1)
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(context.Background(), path, LoadOptions{})
	want := path + ":45:54: x-idempotency.tombstone: retention 100000d plus tombstone 10000d is longer than the longest duration a record can be kept (about 292 years)"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got: %v\nwant: %s", err, want)
	}
}
