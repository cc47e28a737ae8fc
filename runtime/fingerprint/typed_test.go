package fingerprint

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// The types and typedOrderSum below are what issue 4's generator is meant
// to emit for orderSpec: typed fields walked with a Writer, member names in
// SortKeys order hard-coded, no reflection. The test proves such code equals
// the generic Spec.Sum byte for byte on random requests.

type typedItem struct {
	SKU       string   `json:"sku"`
	Qty       int64    `json:"qty"`
	Price     float64  `json:"price"`
	Tags      []string `json:"tags,omitempty"`
	ClientRef string   `json:"client_ref,omitempty"`
}

type typedDelivery struct {
	City string  `json:"city"`
	Zip  *string `json:"zip,omitempty"`
}

type typedOrder struct {
	CustomerID   string         `json:"customer_id"`
	Items        []typedItem    `json:"items"`
	Delivery     *typedDelivery `json:"delivery,omitempty"`
	ClientSentAt string         `json:"client_sent_at"`
	Note         string         `json:"note,omitempty"`
}

// typedSpec adds an unordered array nested in the unordered items.
var typedSpec = Spec{
	Include:   orderSpec.Include,
	Exclude:   orderSpec.Exclude,
	Unordered: []string{"/items", "/items/*/tags"},
}

func typedOrderSum(orderID string, o *typedOrder) (Sum, error) {
	return SumWith("POST", "/shops/{shop}/orders", map[string]string{"shop": orderID}, func(w *Writer) {
		w.BeginObject()
		w.Key("/customer_id") // SortKeys(include): /customer_id, /delivery, /items
		w.BeginArray()
		w.String(o.CustomerID)
		w.EndArray()
		w.Key("/delivery")
		w.BeginArray()
		if o.Delivery != nil {
			w.BeginObject()
			w.Key("city")
			w.String(o.Delivery.City)
			if o.Delivery.Zip != nil {
				w.Key("zip")
				w.String(*o.Delivery.Zip)
			}
			w.EndObject()
		}
		w.EndArray()
		w.Key("/items")
		w.BeginArray()
		w.BeginUnorderedArray()
		for _, it := range o.Items {
			w.BeginObject() // client_ref is excluded
			w.Key("price")
			w.Float(it.Price)
			w.Key("qty")
			w.Int(it.Qty)
			w.Key("sku")
			w.String(it.SKU)
			if len(it.Tags) > 0 { // omitempty: an empty list is absent from the JSON
				w.Key("tags")
				w.BeginUnorderedArray()
				for _, tag := range it.Tags {
					w.String(tag)
				}
				w.EndUnorderedArray()
			}
			w.EndObject()
		}
		w.EndUnorderedArray()
		w.EndArray()
		w.EndObject()
	})
}

func randOrder(r *rand.Rand) *typedOrder {
	o := &typedOrder{CustomerID: randString(r), ClientSentAt: randString(r), Note: randString(r)}
	for range r.IntN(5) {
		it := typedItem{SKU: randString(r), Qty: r.Int64N(1<<60) >> r.IntN(60), Price: randFloat(r), ClientRef: randString(r)}
		if r.IntN(2) == 0 {
			it.Tags = []string{}
			for range r.IntN(4) {
				it.Tags = append(it.Tags, randString(r))
			}
		}
		if r.IntN(4) == 0 && len(o.Items) > 0 {
			it = o.Items[0] // duplicates must be kept
		}
		o.Items = append(o.Items, it)
	}
	if o.Items == nil {
		o.Items = []typedItem{}
	}
	if r.IntN(3) > 0 {
		o.Delivery = &typedDelivery{City: randString(r)}
		if r.IntN(2) == 0 {
			zip := randString(r)
			o.Delivery.Zip = &zip
		}
	}
	return o
}

func TestTypedSumMatchesSpecSum(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 3000 {
		o := randOrder(r)
		shop := randString(r)
		body, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := typedSpec.Sum(Request{Method: "post", Route: "/shops/{shop}/orders", PathParams: map[string]string{"shop": shop}, Body: body})
		if err != nil {
			t.Fatalf("order %d: Spec.Sum(%s): %v", i, body, err)
		}
		got, err := typedOrderSum(shop, o)
		if err != nil {
			t.Fatalf("order %d: typed sum: %v", i, err)
		}
		if got != want {
			t.Fatalf("order %d: typed sum %s, Spec.Sum %s\nbody: %s", i, got, want, body)
		}
		// The typed sum must also see what the spec deems significant.
		if len(o.Items) > 0 {
			o.Items[0].SKU += "x"
			changed, err := typedOrderSum(shop, o)
			if err != nil {
				t.Fatal(err)
			}
			if changed == got {
				t.Fatalf("order %d: changing an item's sku kept the typed sum", i)
			}
		}
	}
}

func TestSumWithoutBody(t *testing.T) {
	want, err := (Spec{}).Sum(Request{Method: "DELETE", Route: "/o/{id}", PathParams: map[string]string{"id": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(*Writer){"nil": nil, "writes nothing": func(*Writer) {}} {
		got, err := SumWith("delete", "/o/{id}", map[string]string{"id": "1"}, write)
		if err != nil || got != want {
			t.Errorf("SumWith(%s) = %s, %v; want %s", name, got, err, want)
		}
	}
	if got, err := SumCanonical("DELETE", "/o/{id}", map[string]string{"id": "1"}, nil); err != nil || got != want {
		t.Errorf("SumCanonical(nil body) = %s, %v; want %s", got, err, want)
	}
	if _, err := SumWith("POST", "/o", nil, func(w *Writer) { w.BeginArray() }); err == nil {
		t.Error("SumWith with an unclosed array: no error")
	}
}
