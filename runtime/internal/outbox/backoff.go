package outbox

import (
	"math/rand/v2"
	"time"
)

// Backoff is the default wait after attempt n (1, 2, …): 1s doubled per
// attempt up to 10m, of which a random half is taken off (jitter), so
// effects that failed together do not come back together.
func Backoff(attempt int) time.Duration {
	d := time.Second << min(max(attempt-1, 0), 10)
	d = min(d, 10*time.Minute)
	return d/2 + rand.N(d/2+1)
}
