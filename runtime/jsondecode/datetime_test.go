package jsondecode

import (
	"strings"
	"testing"
	"time"
)

// TestParseDateTime is the reproduction of valid RFC 3339 date-times
// that generated decoders refused, a leap second and a lower-case t or
// z, and keeps refusing what the grammar of section 5.6 and the rules of
// 5.7 do not allow.
func TestParseDateTime(t *testing.T) {
	ok := map[string]time.Time{
		"2024-05-01T12:00:00Z":                time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01t12:00:00z":                time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01T12:00:00.5+02:00":         time.Date(2024, 5, 1, 10, 0, 0, 5e8, time.UTC),
		"2024-05-01T12:00:00.123456789123Z":   time.Date(2024, 5, 1, 12, 0, 0, 123456789, time.UTC),
		"2016-12-31T23:59:60Z":                time.Date(2016, 12, 31, 23, 59, 59, 0, time.UTC),
		"2016-12-31T23:59:60.25Z":             time.Date(2016, 12, 31, 23, 59, 59, 25e7, time.UTC),
		"1990-12-31T15:59:60-08:00":           time.Date(1990, 12, 31, 23, 59, 59, 0, time.UTC), // RFC 3339's own example
		"2024-02-29T00:00:00-00:00":           time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		"2000-02-29T23:59:59+23:59":           time.Date(2000, 2, 29, 0, 0, 59, 0, time.UTC),
		"0001-01-01T00:00:00Z":                time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		"9999-12-31T23:59:59.999999999-23:59": time.Date(10000, 1, 1, 23, 58, 59, 999999999, time.UTC),
	}
	for s, want := range ok {
		got, good := ParseDateTime(s)
		if !good || !got.Equal(want) {
			t.Errorf("ParseDateTime(%q) = %v, %v; want %v", s, got, good, want)
		}
	}
	for _, s := range []string{
		"", "2024-05-01", "2024-05-01T12:00:00", "2024-05-01 12:00:00Z", "2024-05-01T12:00Z",
		"2024-05-01T12:00:00,5Z", "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00.5", "2024-05-01T12:00:00+0200",
		"2024-05-01T12:00:00+24:00", "2024-05-01T12:00:00+02:60", "2024-05-01T12:00:00Z ", " 2024-05-01T12:00:00Z",
		"2024-13-01T12:00:00Z", "2024-00-01T12:00:00Z", "2023-02-29T12:00:00Z", "1900-02-29T12:00:00Z", "2024-04-31T12:00:00Z",
		"2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z", "2024-05-01T12:00:61Z",
		"2016-12-31T23:58:60Z", "2016-12-31T12:59:60Z", "2016-12-31T23:59:60+01:00", "1990-12-31T15:59:60-07:00",
		"+2024-05-01T12:00:00Z", "2024-5-01T12:00:00Z", "２０２４-05-01T12:00:00Z", "2024-05-01T12:00:00ZZ",
	} {
		if got, good := ParseDateTime(s); good {
			t.Errorf("ParseDateTime(%q) = %v, want it refused", s, got)
		}
	}
}

// TestTimeAndFormatAcceptRFC3339 reads the same date-times through a
// decoder's Time and the date-time format check of string fields.
func TestTimeAndFormatAcceptRFC3339(t *testing.T) {
	for s, valid := range map[string]bool{
		"2016-12-31T23:59:60Z": true, "2024-05-01t12:00:00z": true,
		"2024-05-01T12:00:60Z": false, "2024-05-01T12:00:00,5Z": false,
	} {
		d := New([]byte(`"` + s + `"`))
		d.Time()
		if err := d.Finish(); (err == nil) != valid {
			t.Errorf("Time(%q): %v, want valid %v", s, err, valid)
		}
		d = New([]byte(`""`))
		_ = d.String()
		d.CheckFormat(s, FormatDateTime)
		if err := d.Finish(); (err == nil) != valid {
			t.Errorf("CheckFormat(%q, date-time): %v, want valid %v", s, err, valid)
		}
	}
}

// TestIntRefusesEveryFraction is the reproduction of
// 1.000000000000000000001 accepted as the integer 1, as a double rounds
// it: whether a number is an integer is decided on its text, exactly,
// and a fraction of zero in any spelling stays accepted.
func TestIntRefusesEveryFraction(t *testing.T) {
	for lit, want := range map[string]int64{
		"1": 1, "1.0": 1, "1.000000000000000000000": 1, "1e2": 100, "1.5e1": 15, "100e-2": 1, "-0.0": 0,
		"0e5": 0, "12.340e2": 1234, "-7.000E+0": -7, "9007199254740991.0": MaxExactInt,
		"0.0000000000000000000000001e25": 1,
	} {
		d := New([]byte(lit))
		got := d.Int(-MaxExactInt, MaxExactInt)
		if err := d.Finish(); err != nil || got != want {
			t.Errorf("Int(%s) = %d, %v; want %d", lit, got, err, want)
		}
	}
	for _, lit := range []string{
		"1.000000000000000000001", "1.5", "0.1", "1.05e1", "1e-1", "1e-400", "100e-3", "-1.0000000000000001",
		"9007199254740991.5", "4503599627370495.5", "0.0000000000000000000000001e24", "1.000000000000000000001e0",
	} {
		d := New([]byte(lit))
		d.Int(-MaxExactInt, MaxExactInt)
		if err := d.Finish(); err == nil {
			t.Errorf("Int(%s) accepted, want it refused", lit)
		}
	}
}

// TestNewForgetsTheLastRefusal reads a value after a decoder whose last
// value was refused went back to the pool: New starts it afresh, so the
// value is read and checked (a stale refusal read 1 as 0 and skipped the
// checks of a top-level value).
func TestNewForgetsTheLastRefusal(t *testing.T) {
	for range 3 {
		d := New([]byte(`1.5`))
		d.Int(0, 10)
		if d.Finish() == nil {
			t.Fatal("1.5 as an integer accepted")
		}
		d = New([]byte(`7`))
		if got := d.Int(0, 10); got != 7 {
			t.Errorf("Int(7) = %d after a refused value", got)
		}
		d.Maximum(7, 5, false)
		if d.Finish() == nil {
			t.Error("7 > 5 accepted after a refused value")
		}
	}
}

// FuzzParseDateTime compares ParseDateTime with Go's strict RFC 3339
// parser, on the text with its t and z in upper case: they must agree on
// every text but those with a leap second, which Go refuses, and those
// Go accepts and the grammar does not (goLenient); and an accepted text
// must be the same instant.
func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{
		"2024-05-01T12:00:00Z", "2024-05-01t12:00:00z", "2016-12-31T23:59:60Z", "1990-12-31T15:59:60-08:00",
		"2024-05-01T12:00:00.123456789123+02:00", "2024-05-01T12:00:00,5Z", "2023-02-29T12:00:00Z", "2024-05-01T12:00:00+24:00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDateTime(s)
		upper := []byte(s)
		if len(upper) > 10 && upper[10] == 't' {
			upper[10] = 'T'
		}
		if n := len(upper); n > 0 && upper[n-1] == 'z' {
			upper[n-1] = 'Z'
		}
		want, err := time.Parse(time.RFC3339Nano, string(upper))
		leap := len(s) >= 19 && s[17:19] == "60"
		switch {
		case ok && !leap && err != nil:
			t.Errorf("ParseDateTime(%q) accepted what time.Parse refuses: %v", s, err)
		case ok && !leap && !got.Equal(want):
			t.Errorf("ParseDateTime(%q) = %v, time.Parse %v", s, got, want)
		case !ok && err == nil && !goLenient(s):
			t.Errorf("ParseDateTime(%q) refused what time.Parse reads as %v", s, want)
		}
	})
}

// goLenient reports whether s is one of the texts time.Parse accepts as
// RFC 3339 although the grammar does not: a comma before the fraction, an
// hour of one digit, an offset beyond 23:59.
func goLenient(s string) bool {
	n := len(s)
	if strings.Contains(s, ",") || n < 20 || s[13] != ':' || s[16] != ':' {
		return true
	}
	if s[n-6] != '+' && s[n-6] != '-' {
		return false
	}
	h, _ := digits(s[n-5 : n-3])
	m, _ := digits(s[n-2:])
	return h > 23 || m > 59
}
