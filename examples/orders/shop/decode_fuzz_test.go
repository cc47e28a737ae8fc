package shop

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// fuzzSeeds are bodies of every kind the decoders meet: valid, invalid by
// each rule, and the attacks.
var fuzzSeeds = []string{
	`{"shop_id":"s","external_order_id":"e","customer_id":"c42","items":[{"sku":"SKU-1","quantity":2},{"sku":"SKU-2","quantity":1.0}],"delivery":{"name":"A","street":"S","city":"C","postal_code":"1","country":"NO","instructions":"ring"}}`,
	`{"items":[{"quantity":1e0,"sku":"B"},{"sku":"A","quantity":3}],"delivery":{"country":"SE","postal_code":"x","city":"c","street":"s","name":"n"},"customer_id":"\u00f8","external_order_id":"e\"","shop_id":"s\\","client_sent_at":"2026-12-01T10:00:00+01:00"}`,
	`{}`, `null`, `[]`, ``, `{"customer_id":"c42","CUSTOMER_ID":"evil"}`, `{"customer_id":"c42","customer_id":"evil"}`,
	`{"customer_id":"c\u0000x"}`, `{"items":[{"sku":"A","quantity":9007199254740993}]}`, `{"items":[{"sku":"A","quantity":-5}]}`,
	`{"shop_id":"s","external_order_id":"e","customer_id":"c","items":[{"sku":"A","quantity":1}],"delivery":{"name":"A","street":"S","city":"C","postal_code":"1","country":"NO"},"client_sent_at":"2026-12-01T10:00:00.000Z"}`,
	`{"shop_id":"s","external_order_id":"e","customer_id":"c","items":[{"sku":"A","quantity":1}],"delivery":{"name":"A","street":"S","city":"C","postal_code":"1","country":"NO"},"client_sent_at":"2026-12-01T10:00:00+00:00"}`,
	`{"reason":"fraud"}`, `{"reason":"bored"}`, `{"reason":"\ud800"}`, "{\"reason\":\"\xff\"}", `{"a":{"b":[1,2,{"c":null}]}}`,
}

// Must show 2: random bodies never panic the decoder of createOrder and
// never fail but as an invalid body (400, never 500); an accepted body
// re-encodes to a value that decodes the same; its typed fingerprint
// equals the runtime's generic fingerprint of the same bytes.
func FuzzDecodeCreateOrder(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := decodeCreateOrder(&idemimpl.Request{Body: body})
		if err != nil {
			if !errors.Is(err, idem.ErrInvalidBody) {
				t.Fatalf("error %v is not an invalid body: it would answer 500", err)
			}
			return
		}
		again := roundTrip(t, v.Body, decodeCreateOrder, idemimpl.Request{})
		if diff := cmp.Diff(v, again); diff != "" {
			t.Fatalf("re-encoded body decodes differently (-first +again):\n%s", diff)
		}
		if _, err := naturalKeyCreateOrder(v); err != nil {
			t.Fatalf("natural key: %v", err)
		}
		sameFingerprint(t, body, contractCreateOrder, func() (fingerprint.Sum, error) { return fingerprintCreateOrder(v, nil) })
	})
}

// FuzzDecodeCancelOrder is FuzzDecodeCreateOrder for cancelOrder.
func FuzzDecodeCancelOrder(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	params := map[string]string{"order-id": "o-1"}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := decodeCancelOrder(&idemimpl.Request{Body: body, PathParams: params})
		if err != nil {
			if !errors.Is(err, idem.ErrInvalidBody) {
				t.Fatalf("error %v is not an invalid body: it would answer 500", err)
			}
			return
		}
		if diff := cmp.Diff(v, roundTrip(t, v.Body, decodeCancelOrder, idemimpl.Request{PathParams: params})); diff != "" {
			t.Fatalf("re-encoded body decodes differently (-first +again):\n%s", diff)
		}
		c := contractCancelOrder
		want, err := c.Fingerprint.Sum(fingerprint.Request{Method: c.Method, Route: c.Route, PathParams: params, Body: body})
		if err != nil {
			t.Fatalf("an accepted body the generic fingerprint refuses: %v", err)
		}
		got, err := fingerprintCancelOrder(v, params)
		if err != nil || got != want {
			t.Fatalf("typed fingerprint %v (%v), generic %v", got, err, want)
		}
	})
}

// roundTrip encodes body with encoding/json and decodes the request r
// with it.
func roundTrip[T any](t *testing.T, body any, decode func(*idemimpl.Request) (*T, error), r idemimpl.Request) *T {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	r.Body = b
	again, err := decode(&r)
	if err != nil {
		t.Fatalf("the re-encoded body %s is refused: %v", b, err)
	}
	return again
}

// sameFingerprint compares the typed fingerprint with the contract's
// generic one of body.
func sameFingerprint(t *testing.T, body []byte, c idemimpl.Contract, typed func() (fingerprint.Sum, error)) {
	t.Helper()
	want, err := c.Fingerprint.Sum(fingerprint.Request{Method: c.Method, Route: c.Route, Body: body})
	if err != nil {
		t.Fatalf("an accepted body the generic fingerprint refuses: %v", err)
	}
	got, err := typed()
	if err != nil || got != want {
		t.Fatalf("typed fingerprint %v (%v), generic %v", got, err, want)
	}
}
