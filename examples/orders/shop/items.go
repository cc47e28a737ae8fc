package shop

// ProblemDuplicateSKU is the shop's refusal of an order that lists one SKU
// on two lines (with different quantities; identical lines are refused by
// the schema's uniqueItems already).
const ProblemDuplicateSKU = "https://github.com/idemgen/idemgen/tree/main/examples/orders#duplicate-sku"

// duplicateSKU returns a SKU that items lists twice, or "".
func duplicateSKU(items []OrderItem) string {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if seen[it.Sku] {
			return it.Sku
		}
		seen[it.Sku] = true
	}
	return ""
}
