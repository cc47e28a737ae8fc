package outbox

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// records keeps the log records a handler receives.
type records struct {
	mu   sync.Mutex
	msgs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Level.String()+" "+rec.Message)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// A statement that fails on every poll of a long outage is logged at its
// first failure, then once a minute, and its recovery once; a second
// outage starts over.
func TestOutageLogsOncePerMinute(t *testing.T) {
	rec := &records{}
	now := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	o := &outageLog{logger: slog.New(rec), what: "claiming effects", now: func() time.Time { return now }}
	down := errors.New("connection refused")
	// Ten minutes of polls every 100 ms: 6,000 failures.
	for range 6000 {
		o.fail(down)
		now = now.Add(100 * time.Millisecond)
	}
	o.ok()
	o.ok()
	o.fail(down)
	want := []string{"ERROR idem: claiming effects"}
	for range 9 {
		want = append(want, "ERROR idem: claiming effects still fails")
	}
	want = append(want, "INFO idem: claiming effects works again", "ERROR idem: claiming effects")
	if len(rec.msgs) != len(want) {
		t.Fatalf("logged %d lines, want %d: %q", len(rec.msgs), len(want), rec.msgs)
	}
	for i := range want {
		if rec.msgs[i] != want[i] {
			t.Fatalf("line %d = %q, want %q", i, rec.msgs[i], want[i])
		}
	}
}
