package fingerprint_test

import (
	"fmt"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

func ExampleCanonicalize() {
	out, err := fingerprint.Canonicalize([]byte(`{
		"b": [1E2, 100.0, 1e-7, -0],
		"a": "\u00e9\u000f",
		"\u20ac": true
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"a":"é\u000f","b":[100,100,1e-7,0],"€":true}
}

func ExampleSpec_Sum() {
	spec := fingerprint.Spec{
		Exclude:   []string{"/client_sent_at", "/items/*/client_ref"},
		Unordered: []string{"/items"},
	}
	req := fingerprint.Request{
		Method:     "post",
		Route:      "/orders/{order_id}",
		PathParams: map[string]string{"order_id": "42"},
		Body:       []byte(`{"items":[{"sku":"a","client_ref":1},{"sku":"b"}],"client_sent_at":"12:00"}`),
	}
	first, err := spec.Sum(req)
	if err != nil {
		panic(err)
	}
	// Items reordered, keys reordered, excluded fields changed: same operation.
	req.Body = []byte(`{"client_sent_at":"12:05","items":[{"sku":"b"},{"client_ref":7,"sku":"a"}]}`)
	retry, err := spec.Sum(req)
	if err != nil {
		panic(err)
	}
	// A significant field changed: a different operation.
	req.Body = []byte(`{"items":[{"sku":"b"},{"sku":"c"}]}`)
	changed, err := spec.Sum(req)
	if err != nil {
		panic(err)
	}
	fmt.Println(first == retry, first == changed)
	// Output: true false
}

// ExampleSumWith is the shape of a generated typed fingerprint: members in
// SortKeys order, excluded fields skipped, unordered arrays sorted by the
// Writer. It equals the generic Spec.Sum of the same request.
func ExampleSumWith() {
	type item struct {
		SKU       string
		Qty       int64
		ClientRef string // excluded
	}
	items := []item{{"b", 1, "r2"}, {"a", 2, "r1"}}
	params := map[string]string{"order_id": "42"}

	typed, err := fingerprint.SumWith("POST", "/orders/{order_id}", params, func(w *fingerprint.Writer) {
		w.BeginObject()
		w.Key("items") // fingerprint.SortKeys([]string{"items"}), at generation time
		w.BeginUnorderedArray()
		for _, it := range items {
			w.BeginObject()
			w.Key("qty") // SortKeys([]string{"sku", "qty"}) = [qty sku]
			w.Int(it.Qty)
			w.Key("sku")
			w.String(it.SKU)
			w.EndObject()
		}
		w.EndUnorderedArray()
		w.EndObject()
	})
	if err != nil {
		panic(err)
	}

	spec := fingerprint.Spec{Exclude: []string{"/items/*/client_ref"}, Unordered: []string{"/items"}}
	generic, err := spec.Sum(fingerprint.Request{
		Method:     "POST",
		Route:      "/orders/{order_id}",
		PathParams: params,
		Body:       []byte(`{"items":[{"sku":"a","qty":2,"client_ref":"x"},{"sku":"b","qty":1}]}`),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(typed == generic)
	fmt.Printf("%+q\n", fingerprint.SortKeys([]string{"\ufb33", "\U0001F600", "z"}))
	// Output:
	// true
	// ["z" "\U0001f600" "\ufb33"]
}
