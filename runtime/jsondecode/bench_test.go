package jsondecode

import (
	"encoding/json"
	"testing"
)

// benchBody is a 2 KB object of strings, numbers, arrays and nested
// objects, like a large API request.
var benchBody = []byte(`{"name":"Jenny Rosen","email":"jenny.rosen@example.com","balance":-1500,` +
	`"address":{"city":"San Francisco","country":"US","line1":"510 Townsend St","postal_code":"94103"},` +
	`"tags":["a","b","c","d"],"metadata":{` +
	`"k0":"v0","k1":"v1","k2":"v2","k3":"v3","k4":"v4","k5":"v5","k6":"v6","k7":"v7"},` +
	`"tax_id_data":[{"type":"eu_vat","value":"DE123456789"},{"type":"gb_vat","value":"GB123456789"}],` +
	`"description":"A customer with \"quotes\", a tab\t and \u00fcnicode","ratio":0.25,"active":true,"none":null}`)

// The tokeniser alone: reading every value of the body strictly
// (duplicates, strings, exact numbers) and keeping nothing.
func BenchmarkTokenize(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		d := New(benchBody)
		d.Skip()
		if err := d.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}

// encoding/json's scanner over the same body, for scale: it checks the
// syntax only.
func BenchmarkEncodingJSONValid(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		if !json.Valid(benchBody) {
			b.Fatal("invalid")
		}
	}
}
