package idemops

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5/pgtype"
)

// maxLink bounds a link filter: longer than any Location a service sends.
const maxLink = 2048

// parseLink checks a link filter: "" is no filter; anything else is one
// line of printable text, as a Location header carries it.
func parseLink(link string) (pgtype.Text, error) {
	if link == "" {
		return pgtype.Text{}, nil
	}
	if len(link) > maxLink {
		return pgtype.Text{}, invalid(fmt.Sprintf("link of %d bytes: at most %d", len(link), maxLink), nil)
	}
	if strings.TrimSpace(link) != link || strings.IndexFunc(link, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }) >= 0 {
		return pgtype.Text{}, invalid(fmt.Sprintf("link %q: write it as the answer's Location gave it (/orders/42) or its last segments (42), without spaces or control characters", link), nil)
	}
	return pgtype.Text{String: link, Valid: true}, nil
}
