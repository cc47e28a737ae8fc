package golden

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strconv"
	"strings"
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
	var got PostChargesBody
	if err := form.Decode(v, &got); err != nil {
		t.Fatal(err)
	}
	capture, fee, qty := false, 1.5, int32(3)
	method := PostChargesBodyCaptureMethodManual
	city := "Paris"
	one, two := int64(1), int64(2)
	paid := "2026-11-30T12:00:00Z"
	want := PostChargesBody{
		Amount: 2000, Currency: "eur", Capture: &capture, Fee: &fee,
		Expand:        []string{"customer", "invoice"},
		Metadata:      json.RawMessage(`{"order":"42"}`),
		Shipping:      &PostChargesBodyShipping{Name: "Ada", Address: &Address{City: &city}},
		Items:         []PostChargesBodyItemsItem{{Sku: "A", Qty: &qty}, {Sku: "B"}},
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
		var got PostChargesBody
		if err := form.Decode(v, &got); err == nil || err.Error() != want {
			t.Errorf("Decode(%q) = %v, want %q", body, err, want)
		}
	}
}

// TestFormMatchesJSON sends random requests both as JSON and as a
// Stripe-style form and requires the generated decoders to produce the
// same typed value, which is what the typed fingerprint walks.
func TestFormMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 500 {
		want := randomCharge(rng)
		data, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON PostChargesBody
		if err := json.Unmarshal(data, &fromJSON); err != nil {
			t.Fatal(err)
		}
		values := url.Values{}
		encodeForm(values, "", fromJSONValue(t, data))
		var fromForm PostChargesBody
		if err := form.Decode(values, &fromForm); err != nil {
			t.Fatalf("request %d: %s: %v", i, values.Encode(), err)
		}
		if !reflect.DeepEqual(fromJSON, fromForm) {
			gf, _ := json.Marshal(fromForm)
			t.Fatalf("request %d decodes differently:\n json %s\n form %s (%s)", i, data, gf, values.Encode())
		}
	}
}

func randomCharge(rng *rand.Rand) PostChargesBody {
	str := func() string {
		const letters = "abcé z&=[]%+"
		b := make([]rune, rng.IntN(6))
		for i := range b {
			b[i] = []rune(letters)[rng.IntN(len([]rune(letters)))]
		}
		return string(b)
	}
	maybe := func() bool { return rng.IntN(2) == 0 }
	r := PostChargesBody{Amount: rng.Int64N(1<<40) - 1<<39, Currency: str()}
	if maybe() {
		v := maybe()
		r.Capture = &v
	}
	if maybe() {
		v := PostChargesBodyCaptureMethodAutomatic
		if maybe() {
			v = PostChargesBodyCaptureMethodManual
		}
		r.CaptureMethod = &v
	}
	if maybe() {
		v := float64(rng.IntN(100000)) / 100
		r.Fee = &v
	}
	for range rng.IntN(3) {
		r.Expand = append(r.Expand, str())
	}
	for range rng.IntN(12) {
		it := PostChargesBodyItemsItem{Sku: str()}
		if maybe() {
			q := rng.Int32()
			it.Qty = &q
		}
		r.Items = append(r.Items, it)
	}
	if maybe() {
		r.Shipping = &PostChargesBodyShipping{Name: str()}
		if maybe() {
			city := str()
			r.Shipping.Address = &Address{City: &city}
		}
	}
	if maybe() {
		r.Scores = map[string][]*int64{}
		for range 1 + rng.IntN(3) {
			var list []*int64
			for range 1 + rng.IntN(3) {
				v := rng.Int64()
				list = append(list, &v)
			}
			// Member names cannot hold [ or ]: bracketed keys have no
			// escape for them, in Stripe's format or any other.
			r.Scores["k"+strings.NewReplacer("[", "", "]", "").Replace(str())] = list
		}
	}
	if maybe() {
		at := time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).UTC().Format(time.RFC3339Nano)
		r.PaidAt = &at
	}
	return r
}

// fromJSONValue decodes JSON keeping numbers as written.
func fromJSONValue(t *testing.T, data []byte) any {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// encodeForm writes a JSON value as Stripe's clients do: objects as
// key[member], arrays as key[index].
func encodeForm(values url.Values, key string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if key == "" {
				encodeForm(values, k, m)
			} else {
				encodeForm(values, key+"["+k+"]", m)
			}
		}
	case []any:
		for i, e := range v {
			encodeForm(values, key+"["+strconv.Itoa(i)+"]", e)
		}
	case json.Number:
		values.Add(key, v.String())
	case bool:
		values.Add(key, strconv.FormatBool(v))
	case string:
		values.Add(key, v)
	}
}
