package spec

import (
	"errors"
	"math"
	"strings"
	"time"
)

// errDurationSyntax is the reason ParseDuration gives for text that is not
// a duration; the decoder words it for the user.
var errDurationSyntax = errors.New("want a duration such as 90m, 72h, 30d or 1d12h")

// errDurationRange is the reason ParseDuration gives for a duration that
// does not fit in a time.Duration.
var errDurationRange = errors.New("duration out of range")

// ParseDuration parses a contract duration: Go's time.ParseDuration syntax
// plus a "d" unit for days of 24 hours, in any position and combination,
// such as 72h, 30d, 1d12h or 90m. Days are calendar-free: 1d is exactly
// 24h.
func ParseDuration(s string) (time.Duration, error) {
	rest := s
	neg := false
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		neg = rest[0] == '-'
		rest = rest[1:]
	}
	if rest == "" {
		return 0, errDurationSyntax
	}
	if rest == "0" {
		return 0, nil
	}
	var total time.Duration
	var goPart strings.Builder
	for rest != "" {
		num := leadingNumber(rest)
		if num == "" {
			return 0, errDurationSyntax
		}
		rest = rest[len(num):]
		unit := leadingUnit(rest)
		if unit == "" {
			return 0, errDurationSyntax
		}
		rest = rest[len(unit):]
		if !durationUnits[unit] {
			return 0, errDurationSyntax
		}
		if unit != "d" {
			goPart.WriteString(num)
			goPart.WriteString(unit)
			continue
		}
		hours, err := time.ParseDuration(num + "h")
		if err != nil {
			return 0, errDurationRange
		}
		if hours > math.MaxInt64/24 {
			return 0, errDurationRange
		}
		if total, err = addDuration(total, 24*hours); err != nil {
			return 0, err
		}
	}
	if goPart.Len() > 0 {
		d, err := time.ParseDuration(goPart.String())
		if err != nil {
			// Numbers and units were checked above, so what is left for
			// time.ParseDuration to refuse is a value too large.
			return 0, errDurationRange
		}
		if total, err = addDuration(total, d); err != nil {
			return 0, err
		}
	}
	if neg {
		total = -total
	}
	return total, nil
}

// durationUnits are the units ParseDuration accepts: Go's and "d".
var durationUnits = map[string]bool{
	"ns": true, "us": true, "µs": true, "μs": true, "ms": true,
	"s": true, "m": true, "h": true, "d": true,
}

// leadingNumber returns the decimal number, digits and at most one dot, at
// the start of s.
func leadingNumber(s string) string {
	dot := false
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' && !dot {
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
	}
	if s[:i] == "." {
		return ""
	}
	return s[:i]
}

// leadingUnit returns the unit letters at the start of s: ASCII letters and
// the micro sign that time.ParseDuration accepts.
func leadingUnit(s string) string {
	i := 0
	for i < len(s) {
		switch {
		case s[i] >= 'a' && s[i] <= 'z':
			i++
		case strings.HasPrefix(s[i:], "µ"):
			i += len("µ")
		case strings.HasPrefix(s[i:], "μ"):
			i += len("μ")
		default:
			return s[:i]
		}
	}
	return s
}

// addDuration adds two non-negative durations, reporting overflow.
func addDuration(a, b time.Duration) (time.Duration, error) {
	if a > math.MaxInt64-b {
		return 0, errDurationRange
	}
	return a + b, nil
}
