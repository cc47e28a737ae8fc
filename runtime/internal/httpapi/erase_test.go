package httpapi

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
)

// erasedOrder is a request type for the Erase tests.
type erasedOrder struct{ Item string }

// TestEraseHandsTheDecodedValueToEachFunc checks that the erased funcs of
// a Typed, whose instances share one GC shape, see the very *T its Decode
// returned, and that nil funcs stay nil.
func TestEraseHandsTheDecodedValueToEachFunc(t *testing.T) {
	decoded := &erasedOrder{Item: "book"}
	var seen []*erasedOrder
	typed := Typed[erasedOrder]{
		Contract: Contract{Operation: "placeOrder"},
		Decode:   func(*Request) (*erasedOrder, error) { return decoded, nil },
		Fingerprint: func(body *erasedOrder, _ map[string]string) (fingerprint.Sum, error) {
			seen = append(seen, body)
			return fingerprint.Sum{}, nil
		},
		NaturalKey: func(body *erasedOrder) (string, error) {
			seen = append(seen, body)
			return body.Item, nil
		},
		Run: func(_ context.Context, _ pgx.Tx, _ *core.Operation, _ *Request, body *erasedOrder) (*Response, error) {
			seen = append(seen, body)
			return &Response{Status: 201}, nil
		},
		Current: func(_ context.Context, _ pgx.Tx, _ *StoredAnswer, _ *Request, body *erasedOrder) (*Response, error) {
			seen = append(seen, body)
			return nil, errors.New("current")
		},
	}
	e := Erase(&typed)
	if e.contract.Operation != "placeOrder" {
		t.Fatalf("contract %q, want placeOrder", e.contract.Operation)
	}
	body, err := e.decode(&Request{})
	if err != nil || body != any(decoded) {
		t.Fatalf("decode = %v, %v; want the decoded *erasedOrder", body, err)
	}
	if _, err := e.fingerprint(body, nil); err != nil {
		t.Fatal(err)
	}
	if nk, err := e.naturalKey(body); err != nil || nk != "book" {
		t.Fatalf("natural key = %q, %v; want book", nk, err)
	}
	if res, err := e.run(context.Background(), nil, nil, &Request{}, body); err != nil || res.Status != 201 {
		t.Fatalf("run = %v, %v; want 201", res, err)
	}
	if _, err := e.current(context.Background(), nil, nil, &Request{}, body); err == nil || err.Error() != "current" {
		t.Fatalf("current = %v, want its error", err)
	}
	if len(seen) != 4 {
		t.Fatalf("%d funcs saw the body, want 4", len(seen))
	}
	for i, b := range seen {
		if b != decoded {
			t.Errorf("func %d saw %p, want the decoded %p", i, b, decoded)
		}
	}

	bare := Erase(&Typed[erasedOrder]{})
	if bare.fingerprint != nil || bare.naturalKey != nil || bare.run != nil || bare.current != nil {
		t.Fatal("nil funcs of a Typed must stay nil once erased")
	}
}

// TestEraseWithoutDecodeGivesEachRequestANewZeroValue checks what a Typed
// without Decode decodes to: a new zero *T per request, never shared.
func TestEraseWithoutDecodeGivesEachRequestANewZeroValue(t *testing.T) {
	e := Erase(&Typed[erasedOrder]{})
	first, err := e.decode(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.decode(&Request{})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := first.(*erasedOrder)
	if !ok || a == nil || *a != (erasedOrder{}) {
		t.Fatalf("decode = %#v, want a new zero *erasedOrder", first)
	}
	if b, ok := second.(*erasedOrder); !ok || b == a {
		t.Fatalf("two requests decoded to %p and %p, want two values", a, second)
	}
}
