package idemtest_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idemtest"
)

func TestFakeClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := idemtest.NewFakeClock(start)
	c.Advance(90 * time.Minute)
	if got, want := c.Now(), start.Add(90*time.Minute); !got.Equal(want) {
		t.Errorf("Now() = %v, want %v", got, want)
	}
}

// All n calls run at the same time: each waits until every one of them has
// started, which would deadlock (and time out) if they ran one by one.
func TestConcurrentlyRunsAllTogether(t *testing.T) {
	const n = 32
	var running atomic.Int64
	all := make(chan struct{})
	got := idemtest.Concurrently(n, func(i int) int {
		if running.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(30 * time.Second):
			t.Error("not all calls ran together")
		}
		return i * 2
	})
	for i, v := range got {
		if v != i*2 {
			t.Fatalf("result %d = %d, want %d", i, v, i*2)
		}
	}
}

func TestServeRecordsAbortAsLost(t *testing.T) {
	lost := idemtest.Serve(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }),
		idemtest.NewRequest(http.MethodPost, "/", "k", nil))
	if lost.Status != 0 {
		t.Errorf("aborted response: status %d, want 0", lost.Status)
	}
	ok := idemtest.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(r.Header.Get("Idempotency-Key")))
	}), idemtest.NewRequest(http.MethodPost, "/", `"k"`, nil))
	if ok.Status != http.StatusTeapot || string(ok.Body) != `"k"` {
		t.Errorf("Serve: %d %q", ok.Status, ok.Body)
	}
}
