package api

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

// Must show 4: decoding and validating a large body of Stripe's POST
// /v1/customers with the generated decoder.
func BenchmarkDecodeStripeCustomerGenerated(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(stripeCustomer)))
	for b.Loop() {
		if _, err := decodePostCustomers(&idemimpl.Request{Body: stripeCustomer}); err != nil {
			b.Fatal(err)
		}
	}
}

// The same with kin-openapi's openapi3filter request validation and
// encoding/json, as an oapi-codegen service does it.
func BenchmarkDecodeStripeCustomerKinOpenAPI(b *testing.B) {
	route := kinRoute(b, "../openapi.yaml", "/v1/customers", http.MethodPost)
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}
	b.ReportAllocs()
	b.SetBytes(int64(len(stripeCustomer)))
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, "https://api.example.com/v1/customers", bytes.NewReader(stripeCustomer))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "k-1")
		in := &openapi3filter.RequestValidationInput{Request: req, Route: route, Options: opts}
		if err := openapi3filter.ValidateRequest(b.Context(), in); err != nil {
			b.Fatal(err)
		}
		var v PostCustomersRequest
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
