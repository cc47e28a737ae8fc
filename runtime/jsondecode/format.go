package jsondecode

import (
	"net/mail"
	"net/url"
	"time"
)

// Format is a string format of JSON Schema that a decoder checks.
type Format int

// The formats checked; others are annotations only, as JSON Schema allows.
// date-time is read by [Decoder.Time].
const (
	// FormatDate is RFC 3339's full-date: 2024-05-01.
	FormatDate Format = iota + 1
	// FormatUUID is RFC 9562's textual form: 8-4-4-4-12 hex digits.
	FormatUUID
	// FormatEmail is an RFC 5322 addr-spec without a display name.
	FormatEmail
	// FormatURI is an absolute URI (RFC 3986): a scheme is required.
	FormatURI
	// FormatDateTime is RFC 3339's date-time, for string fields that keep
	// the text.
	FormatDateTime
)

// CheckFormat checks format f on s.
func (d *Decoder) CheckFormat(s string, f Format) {
	if d.bad {
		return
	}
	var ok bool
	var want string
	switch f {
	case FormatDate:
		_, err := time.Parse(time.DateOnly, s)
		ok, want = err == nil, "a date such as 2024-05-01"
	case FormatUUID:
		ok, want = validUUID(s), "a UUID such as 3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a"
	case FormatEmail:
		a, err := mail.ParseAddress(s)
		ok, want = err == nil && a.Name == "" && a.Address == s, "an email address such as ada@example.com"
	case FormatURI:
		u, err := url.Parse(s)
		ok, want = err == nil && u.Scheme != "", "an absolute URI such as https://example.com/x"
	case FormatDateTime:
		_, ok = ParseDateTime(s)
		want = "an RFC 3339 date-time such as 2024-05-01T12:00:00Z"
	default:
		return
	}
	if !ok {
		d.Violate("must be " + want)
	}
}

func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
