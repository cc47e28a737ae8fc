package shop

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"

	"github.com/idemgen/idemgen/runtime/idem"
)

// checkItems refuses what the schema lets through and the tables would
// refuse with an error (a 500): a SKU on two lines with different
// quantities (identical lines are refused by uniqueItems, a quantity below
// one by minimum, both with the other violations in a 400).
func checkItems(items []OrderItem) *idem.Rejection {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if seen[it.Sku] {
			return &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemBadItems, Title: "Bad items",
				Detail: fmt.Sprintf("%s is listed on more than one line; put the whole quantity on one", it.Sku)}
		}
		seen[it.Sku] = true
	}
	return nil
}

// bySKU returns a copy of items sorted by SKU: the order in which an
// order locks its stock rows.
func bySKU(items []OrderItem) []OrderItem {
	return slices.SortedFunc(slices.Values(items), func(a, b OrderItem) int { return cmp.Compare(a.Sku, b.Sku) })
}

// isUUID reports whether s is a UUID in its canonical text form
// (8-4-4-4-12 hexadecimal digits), the form of an order's id.
func isUUID(s string) bool {
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
