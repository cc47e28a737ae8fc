package idemtest

import (
	"log/slog"
	"strings"
	"testing"
)

// testLogger is the executor's logger in the contract tests: its Warn and
// Error records (a failed operation, with its whole error chain) go to
// t.Log, so a failing scenario shows why the business or the database
// failed, not only the 500 the client got.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// testWriter writes each record to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log("executor log: " + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
