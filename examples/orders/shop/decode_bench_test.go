package shop

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// benchOrder is a valid NewOrder body of three items.
var benchOrder = []byte(`{"shop_id":"shop-1","external_order_id":"A-1001","customer_id":"customer-42",` +
	`"items":[{"sku":"SKU-1","quantity":2},{"sku":"SKU-2","quantity":1},{"sku":"SKU-3","quantity":5}],` +
	`"delivery":{"name":"Ann Smith","street":"1 Main St","city":"Oslo","postal_code":"0150","country":"NO","instructions":"Leave at the door"},` +
	`"client_sent_at":"2026-12-01T10:00:00Z"}`)

// Must show 4: decoding and validating createOrder's body with the
// generated decoder.
func BenchmarkDecodeNewOrderGenerated(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchOrder)))
	for b.Loop() {
		if _, err := decodeCreateOrder(&idemimpl.Request{Body: benchOrder}); err != nil {
			b.Fatal(err)
		}
	}
}

// The same the way an oapi-codegen service usually does it: kin-openapi's
// openapi3filter request validation (as its validation middleware runs it,
// after routing) and then encoding/json into the typed struct.
func BenchmarkDecodeNewOrderKinOpenAPI(b *testing.B) {
	route := kinRoute(b, "../openapi.yaml", "/orders", http.MethodPost)
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchOrder)))
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, "https://api.example.com/v1/orders", bytes.NewReader(benchOrder))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "k-1")
		in := &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: opts}
		if err := openapi3filter.ValidateRequest(b.Context(), in); err != nil {
			b.Fatal(err)
		}
		var v NewOrder
		if err := json.NewDecoder(req.Body).Decode(&v); err != nil {
			b.Fatal(err)
		}
	}
}

// kinRoute loads a spec with kin-openapi and returns the route of one
// operation, as a router would have found it.
func kinRoute(b *testing.B, file, path, method string) *routers.Route {
	doc, err := openapi3.NewLoader().LoadFromFile(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := doc.Validate(b.Context()); err != nil {
		b.Fatal(err)
	}
	item := doc.Paths.Find(path)
	return &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: item.GetOperation(method)}
}
