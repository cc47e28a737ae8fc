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
