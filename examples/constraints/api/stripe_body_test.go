package api

import (
	"encoding/json"
	"fmt"
)

// stripeCustomer is a large body of Stripe's POST /v1/customers, as JSON.
var stripeCustomer = func() []byte {
	metadata := map[string]any{}
	for i := range 20 {
		metadata[fmt.Sprintf("key_%02d", i)] = fmt.Sprintf("value number %d of the customer's metadata", i)
	}
	address := map[string]any{"city": "San Francisco", "country": "US", "line1": "510 Townsend St", "line2": "Floor 2", "postal_code": "94103", "state": "CA"}
	b, err := json.Marshal(map[string]any{
		"address":        address,
		"balance":        -1500,
		"description":    "A customer created by the benchmark, with every kind of member Stripe's schema has",
		"email":          "jenny.rosen@example.com",
		"expand":         []string{"default_source", "invoice_settings.default_payment_method", "tax"},
		"invoice_prefix": "JENNY01",
		"invoice_settings": map[string]any{
			"custom_fields":          []any{map[string]any{"name": "PO", "value": "12345"}, map[string]any{"name": "Dept", "value": "Sales"}},
			"default_payment_method": "pm_card_visa",
			"footer":                 "Thank you for your business",
			"rendering_options":      map[string]any{"amount_tax_display": "include_inclusive_tax"},
		},
		"metadata":              metadata,
		"name":                  "Jenny Rosen",
		"next_invoice_sequence": 42,
		"payment_method":        "pm_card_visa",
		"phone":                 "+14155550123",
		"preferred_locales":     []string{"en-US", "fr-FR", "de-DE"},
		"shipping":              map[string]any{"address": address, "name": "Jenny Rosen", "phone": "+14155550123"},
		"tax":                   map[string]any{"ip_address": "203.0.113.7", "validate_location": "deferred"},
		"tax_exempt":            "none",
		"tax_id_data": []any{
			map[string]any{"type": "eu_vat", "value": "DE123456789"},
			map[string]any{"type": "gb_vat", "value": "GB123456789"},
			map[string]any{"type": "us_ein", "value": "12-3456789"},
		},
	})
	if err != nil {
		panic(err)
	}
	return b
}()
