package spec

import (
	"fmt"
	"time"
)

// FormatDuration writes a contract duration for people, in a form
// ParseDuration reads back: whole weeks and longer as days (30d), whole
// hours as hours (72h), whole minutes as minutes (90m), else Go's form.
func FormatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == 0:
		return "0s"
	case d%day == 0 && d >= 7*day:
		return fmt.Sprintf("%dd", d/day)
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	default:
		return d.String()
	}
}
