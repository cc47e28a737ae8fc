package shop

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"

	"github.com/idemgen/idemgen/runtime/idem"
)

// checkItems refuses an order's items that the tables would refuse with
// an error (a 500): a quantity below one, or a SKU listed twice.
func checkItems(items []OrderItem) *idem.Rejection {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		switch {
		case it.Quantity < 1:
			return &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemBadItems, Title: "Bad items",
				Detail: fmt.Sprintf("quantity of %s must be at least 1", it.Sku)}
		case seen[it.Sku]:
			return &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: ProblemBadItems, Title: "Bad items",
				Detail: fmt.Sprintf("%s is listed twice", it.Sku)}
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
