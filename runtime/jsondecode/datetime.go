package jsondecode

import "time"

// ParseDateTime reads an RFC 3339 date-time as the grammar of RFC 3339
// section 5.6 writes it: full-date "T" partial-time time-offset, the T and
// the Z in either case, a fraction of any number of digits (kept to the
// nanosecond, further digits dropped), and a numeric offset of at most
// 23:59. Section 5.7 holds too: the day exists in its month and year,
// and a leap second (second 60) is one whose UTC time is 23:59:60. A
// time.Time has no leap seconds, so 23:59:60 is read as the last second
// before it, 23:59:59 with the fraction written, as java.time reads it.
// Go's time.Parse refuses the leap second and the lower-case t and z, and
// accepts a comma before the fraction, which the grammar does not.
func ParseDateTime(s string) (time.Time, bool) {
	// 2006-01-02T15:04:05 is 19 bytes; then a fraction and an offset.
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' && s[10] != 't' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	second, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || minute > 59 || second > 60 {
		return time.Time{}, false
	}
	rest := s[19:]
	nanos := 0
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			if n <= 9 {
				nanos = nanos*10 + int(rest[n]-'0')
			}
			n++
		}
		if n == 1 {
			return time.Time{}, false
		}
		for i := n; i <= 9; i++ {
			nanos *= 10
		}
		rest = rest[n:]
	}
	offset, ok := zoneOffset(rest)
	if !ok {
		return time.Time{}, false
	}
	if second == 60 {
		// Only 23:59:60 in UTC is a leap second.
		utc := (hour*60+minute-offset/60)%(24*60) + 24*60
		if utc%(24*60) != 23*60+59 {
			return time.Time{}, false
		}
		second = 59
	}
	loc := time.UTC
	if rest != "Z" && rest != "z" {
		loc = time.FixedZone("", offset)
	}
	return time.Date(year, time.Month(month), day, hour, minute, second, nanos, loc), true
}

// zoneOffset reads a time-offset, Z or ±hh:mm, as seconds east of UTC.
func zoneOffset(s string) (int, bool) {
	if s == "Z" || s == "z" {
		return 0, true
	}
	if len(s) != 6 || s[0] != '+' && s[0] != '-' || s[3] != ':' {
		return 0, false
	}
	h, ok1 := digits(s[1:3])
	m, ok2 := digits(s[4:6])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, false
	}
	offset := (h*60 + m) * 60
	if s[0] == '-' {
		offset = -offset
	}
	return offset, true
}

// digits reads a run of ASCII digits as a number.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// daysIn is the number of days of month in year (proleptic Gregorian, as
// RFC 3339 section 5.7 says).
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
