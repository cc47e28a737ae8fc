package outbox

import (
	"testing"
	"time"
)

// Backoff doubles from 1s to its 10m cap and takes a random part of at
// most half off each wait.
func TestBackoffDoublesWithJitterUpToItsCap(t *testing.T) {
	for attempt, full := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 10: 512 * time.Second, 11: 10 * time.Minute, 40: 10 * time.Minute} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := Backoff(attempt)
			if d < full/2 || d > full {
				t.Fatalf("Backoff(%d) = %s, want within [%s, %s]", attempt, d, full/2, full)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("Backoff(%d) gave one value in 200 draws: no jitter", attempt)
		}
	}
}
