package api

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"
	"time"

	form "github.com/idemgen/idemgen/runtime/form"
)

// TestDecodeForm exercises the generated DecodeForm methods on a body as
// Stripe's clients send it.
func TestDecodeForm(t *testing.T) {
	body := "amount=2000&currency=eur&capture=false&fee=1.5" +
		"&expand[]=customer&expand[]=invoice" +
		"&metadata[order]=42" +
		"&shipping[name]=Ada&shipping[address][city]=Paris" +
		"&items[1][sku]=B&items[0][sku]=A&items[0][qty]=3" +
		"&capture_method=manual" +
		"&scores[x][0]=1&scores[x][1]=2" +
		"&paid_at=2026-11-30T12:00:00Z"
	v, err := url.ParseQuery(body)
	if err != nil {
		t.Fatal(err)
	}
	var got PostChargesRequest
	if err := form.Decode(v, &got); err != nil {
		t.Fatal(err)
	}
	capture, fee, qty := false, 1.5, int32(3)
	method := PostChargesRequestCaptureMethodManual
	city := "Paris"
	one, two := int64(1), int64(2)
	paid := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	want := PostChargesRequest{
		Amount: 2000, Currency: "eur", Capture: &capture, Fee: &fee,
		Expand:        []string{"customer", "invoice"},
		Metadata:      json.RawMessage(`{"order":"42"}`),
		Shipping:      &PostChargesRequestShipping{Name: "Ada", Address: &Address{City: &city}},
		Items:         []PostChargesRequestItemsItem{{Sku: "A", Qty: &qty}, {Sku: "B"}},
		CaptureMethod: &method,
		Scores:        map[string][]*int64{"x": {&one, &two}},
		PaidAt:        &paid,
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("DecodeForm:\n got %s\nwant %s", gj, wj)
	}
}

// TestDecodeFormErrors checks that failures name the key as sent.
func TestDecodeFormErrors(t *testing.T) {
	for body, want := range map[string]string{
		"currency=eur":                                               "form: amount: required key is missing",
		"amount=1&currency=eur&items[0][qty]=1":                      "form: items[0][sku]: required key is missing",
		"amount=1&currency=eur&items[0][sku]=A&items[0][qty]=x":      `form: items[0][qty]: invalid 32-bit integer "x"`,
		"amount=1&currency=eur&shipping[name]=A&shipping[address]=x": "form: shipping[address]: want nested keys, got a value",
	} {
		v, err := url.ParseQuery(body)
		if err != nil {
			t.Fatal(err)
		}
		var got PostChargesRequest
		if err := form.Decode(v, &got); err == nil || err.Error() != want {
			t.Errorf("Decode(%q) = %v, want %q", body, err, want)
		}
	}
}
