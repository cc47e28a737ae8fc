package fingerprint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchOrder is a realistic order body of about 2 KiB.
var benchOrder = func() typedOrder {
	zip := "69001"
	o := typedOrder{
		CustomerID:   "cus_9s6XKzkNRiz8i3",
		ClientSentAt: "2026-11-30T12:00:00.123Z",
		Note:         "Please ring twice — the bell on the left is broken. Leave at the door if nobody answers.",
		Delivery:     &typedDelivery{City: "Lyon", Zip: &zip},
	}
	for i := range 12 {
		o.Items = append(o.Items, typedItem{
			SKU:       fmt.Sprintf("SKU-%06d-BLUE-XL", 1000+i*37),
			Qty:       int64(1 + i%4),
			Price:     19.99 + float64(i)*3.5,
			Tags:      []string{"clothing", "summer", fmt.Sprintf("promo-%d", i%3)},
			ClientRef: fmt.Sprintf("line-%d-7f3a9c", i),
		})
	}
	return o
}()

var benchBody = func() []byte {
	b, err := json.MarshalIndent(benchOrder, "", " ")
	if err != nil {
		panic(err)
	}
	return b
}()

func BenchmarkCanonicalize(b *testing.B) {
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonicalize(benchBody); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSum(b *testing.B) {
	req := Request{Method: "POST", Route: "/shops/{shop}/orders", PathParams: map[string]string{"shop": "s-1"}, Body: benchBody}
	for _, bc := range []struct {
		name string
		spec Spec
	}{
		{"whole-body", Spec{}},
		{"include-exclude-unordered", typedSpec},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(benchBody)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.spec.Sum(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriter measures what a generated typed fingerprint costs for the
// same order and spec as BenchmarkSum/include-exclude-unordered.
func BenchmarkWriter(b *testing.B) {
	b.SetBytes(int64(len(benchBody)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := typedOrderSum("s-1", &benchOrder); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchBodyIsRealistic(t *testing.T) {
	if n := len(benchBody); n < 1800 || n > 2600 {
		t.Errorf("benchmark body is %d bytes, want about 2 KiB", n)
	}
	want, err := typedSpec.Sum(Request{Method: "POST", Route: "/shops/{shop}/orders", PathParams: map[string]string{"shop": "s-1"}, Body: benchBody})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := typedOrderSum("s-1", &benchOrder); err != nil || got != want {
		t.Errorf("BenchmarkWriter and BenchmarkSum fingerprint different content: %s, %v; want %s", got, err, want)
	}
	if !strings.Contains(string(benchBody), "client_ref") {
		t.Error("benchmark body lacks the excluded field")
	}
}
