//go:build long

package api

import "testing"

// Must show 3 at its full size: 200 payments abandoned at random points,
// finished by two completers in two processes (see completeAbandoned).
func TestCompletersFinish200AbandonedPayments(t *testing.T) {
	completeAbandoned(t, 200)
}
