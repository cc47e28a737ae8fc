package fingerprint

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// orderSpec is the fingerprint block of the orders example in DESIGN.md,
// plus a wildcard exclusion inside the unordered items.
var orderSpec = Spec{
	Include:   []string{"/customer_id", "/items", "/delivery"},
	Exclude:   []string{"/client_sent_at", "/items/*/client_ref"},
	Unordered: []string{"/items"},
}

const orderBody = `{"customer_id":"c-1","client_sent_at":"2026-11-30T12:00:00Z",
 "items":[{"sku":"A","qty":2,"client_ref":"r1"},{"sku":"B","qty":1,"client_ref":"r2"}],
 "delivery":{"city":"Lyon","zip":"69001"},"note":"ring twice"}`

func orderRequest(body string) Request {
	return Request{
		Method:     "POST",
		Route:      "/orders",
		PathParams: map[string]string{},
		Body:       []byte(body),
	}
}

func mustSum(t *testing.T, s Spec, r Request) Sum {
	t.Helper()
	sum, err := s.Sum(r)
	if err != nil {
		t.Fatalf("Sum(%s): %v", r.Body, err)
	}
	return sum
}

// TestSumSignificance is issue 3's point 3 at the fingerprint level.
func TestSumSignificance(t *testing.T) {
	base := mustSum(t, orderSpec, orderRequest(orderBody))
	tests := []struct {
		name string
		body string
		same bool
	}{
		{"identical", orderBody, true},
		{"object keys reordered and re-indented", `{
			"delivery": {"zip": "69001", "city": "Lyon"},
			"items": [{"qty": 2, "client_ref": "r1", "sku": "A"}, {"client_ref": "r2", "qty": 1, "sku": "B"}],
			"customer_id": "c-1", "note": "ring twice", "client_sent_at": "2026-11-30T12:00:00Z"}`, true},
		{"unordered array reordered", `{"customer_id":"c-1","client_sent_at":"2026-11-30T12:00:00Z",
			"items":[{"sku":"B","qty":1,"client_ref":"r2"},{"sku":"A","qty":2,"client_ref":"r1"}],
			"delivery":{"city":"Lyon","zip":"69001"},"note":"ring twice"}`, true},
		{"excluded field changed", strings.Replace(orderBody, "2026-11-30T12:00:00Z", "2026-12-01T08:00:00Z", 1), true},
		{"excluded field removed", strings.Replace(orderBody, `"client_sent_at":"2026-11-30T12:00:00Z",`, "", 1), true},
		{"wildcard-excluded field changed", strings.Replace(orderBody, `"r2"`, `"r9"`, 1), true},
		{"field outside include changed", strings.Replace(orderBody, "ring twice", "leave at door", 1), true},
		{"number respelled", strings.Replace(orderBody, `"qty":2`, `"qty":2.0e0`, 1), true},
		{"string respelled with escapes", strings.Replace(orderBody, `"Lyon"`, `"\u004cy\u006Fn"`, 1), true},
		{"significant field changed", strings.Replace(orderBody, `"c-1"`, `"c-2"`, 1), false},
		{"item quantity changed", strings.Replace(orderBody, `"qty":2`, `"qty":3`, 1), false},
		{"item added", strings.Replace(orderBody, `"items":[`, `"items":[{"sku":"A","qty":2},`, 1), false},
		{"duplicate item removed", strings.Replace(orderBody, `{"sku":"B","qty":1,"client_ref":"r2"}`, `{"sku":"A","qty":2,"client_ref":"r2"}`, 1), false},
		{"nested significant field changed", strings.Replace(orderBody, "69001", "69002", 1), false},
		{"included field removed", strings.Replace(orderBody, `"delivery":{"city":"Lyon","zip":"69001"},`, "", 1), false},
		{"included field null", strings.Replace(orderBody, `{"city":"Lyon","zip":"69001"}`, "null", 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name != "identical" && tt.body == orderBody {
				t.Fatal("the edit did not apply to the body")
			}
			got := mustSum(t, orderSpec, orderRequest(tt.body))
			if (got == base) != tt.same {
				t.Errorf("same fingerprint = %v, want %v\nbody: %s", got == base, tt.same, tt.body)
			}
		})
	}
}

func TestSumRequestParts(t *testing.T) {
	base := Request{Method: "PUT", Route: "/orders/{order_id}", PathParams: map[string]string{"order_id": "1", "shop": "x"}, Body: []byte(`{"a":1}`)}
	baseSum := mustSum(t, Spec{}, base)
	tests := []struct {
		name   string
		change func(r *Request)
		same   bool
	}{
		{"method case", func(r *Request) { r.Method = "put" }, true},
		{"params in a new map", func(r *Request) { r.PathParams = map[string]string{"shop": "x", "order_id": "1"} }, true},
		{"method", func(r *Request) { r.Method = "POST" }, false},
		{"route", func(r *Request) { r.Route = "/carts/{order_id}" }, false},
		{"param value", func(r *Request) { r.PathParams = map[string]string{"order_id": "2", "shop": "x"} }, false},
		{"param name", func(r *Request) { r.PathParams = map[string]string{"id": "1", "shop": "x"} }, false},
		{"param dropped", func(r *Request) { r.PathParams = map[string]string{"order_id": "1"} }, false},
		{"body", func(r *Request) { r.Body = []byte(`{"a":2}`) }, false},
		{"no body", func(r *Request) { r.Body = nil }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.change(&r)
			if got := mustSum(t, Spec{}, r); (got == baseSum) != tt.same {
				t.Errorf("same fingerprint = %v, want %v", got == baseSum, tt.same)
			}
		})
	}
}

// TestSumEnvelope pins the exact bytes hashed, which generated code and
// stored fingerprints depend on: changing them invalidates every stored key.
func TestSumEnvelope(t *testing.T) {
	tests := []struct {
		name     string
		spec     Spec
		body     string
		envelope string
	}{
		{"whole body", Spec{}, `{"b":1,"a":[2,1]}`,
			`{"body":{"a":[2,1],"b":1},"method":"POST","params":{"id":"7"},"route":"/r/{id}","v":1}`},
		{"no body", Spec{}, ``,
			`{"method":"POST","params":{"id":"7"},"route":"/r/{id}","v":1}`},
		{"include", Spec{Include: []string{"/b", "/a", "/missing", "/a"}, Unordered: []string{"/a"}}, `{"b":null,"a":[2,1],"c":3}`,
			`{"body":{"/a":[[1,2]],"/b":[null],"/missing":[]},"method":"POST","params":{"id":"7"},"route":"/r/{id}","v":1}`},
		{"whole body excluded", Spec{Exclude: []string{""}}, `{"a":1}`,
			`{"method":"POST","params":{"id":"7"},"route":"/r/{id}","v":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Request{Method: "post", Route: "/r/{id}", PathParams: map[string]string{"id": "7"}, Body: []byte(tt.body)}
			got := mustSum(t, tt.spec, r)
			if want := Sum(sha256.Sum256([]byte(tt.envelope))); got != want {
				t.Errorf("Sum = %s, want sha256(%s) = %s", got, tt.envelope, want)
			}
		})
	}
}

// TestSumSelection checks pointer semantics by the selected content: each
// case lists bodies that must fingerprint alike, then bodies that must not.
func TestSumSelection(t *testing.T) {
	tests := []struct {
		name      string
		spec      Spec
		same      []string
		different []string
	}{
		{
			name:      "absent differs from null",
			spec:      Spec{Include: []string{"/a"}},
			same:      []string{`{}`, `{"b":1}`, `[]`, `3`},
			different: []string{`{"a":null}`, `{"a":[]}`, `{"a":{}}`},
		},
		{
			name:      "array index",
			spec:      Spec{Include: []string{"/a/1"}},
			same:      []string{`{"a":[0,5]}`, `{"a":[9,5,7]}`, `{"a":{"1":5}}`},
			different: []string{`{"a":[5]}`, `{"a":[5,0]}`},
		},
		{
			name:      "index spellings that address nothing",
			spec:      Spec{Include: []string{"/a/01", "/a/-", "/a/+1"}},
			same:      []string{`{"a":[1,2,3]}`, `{"a":[]}`, `{}`},
			different: []string{`{"a":{"01":1}}`, `{"a":{"-":1}}`},
		},
		{
			name:      "escaped tokens",
			spec:      Spec{Include: []string{"/a~1b/c~0d"}},
			same:      []string{`{"a/b":{"c~d":1},"x":2}`, `{"a/b":{"c~d":1}}`},
			different: []string{`{"a/b":{"c~d":2}}`, `{"a":{"b":{"c~d":1}}}`},
		},
		{
			name:      "empty member name",
			spec:      Spec{Include: []string{"/"}},
			same:      []string{`{"":1}`, `{"":1,"a":2}`},
			different: []string{`{"":2}`, `{"a":1}`},
		},
		{
			name:      "exclude inside include",
			spec:      Spec{Include: []string{"/order"}, Exclude: []string{"/order/sent_at"}},
			same:      []string{`{"order":{"id":1,"sent_at":1}}`, `{"order":{"id":1,"sent_at":2}}`, `{"order":{"id":1}}`},
			different: []string{`{"order":{"id":2}}`, `{"order":{"id":1,"x":1}}`},
		},
		{
			name:      "exclusion wins over inclusion",
			spec:      Spec{Include: []string{"/a/b"}, Exclude: []string{"/a"}},
			same:      []string{`{"a":{"b":1}}`, `{"a":{"b":2}}`, `{}`},
			different: nil,
		},
		{
			name:      "wildcard exclude over array of objects",
			spec:      Spec{Exclude: []string{"/items/*/ref"}},
			same:      []string{`{"items":[{"k":1,"ref":"x"},{"k":2}]}`, `{"items":[{"k":1},{"k":2,"ref":"y"}]}`},
			different: []string{`{"items":[{"k":2},{"k":1}]}`, `{"items":[{"k":1}]}`},
		},
		{
			name:      "wildcard exclude over object members",
			spec:      Spec{Exclude: []string{"/meta/*/trace"}},
			same:      []string{`{"meta":{"a":{"trace":1,"v":1}}}`, `{"meta":{"a":{"trace":2,"v":1}}}`},
			different: []string{`{"meta":{"a":{"v":2}}}`, `{"meta":{"b":{"v":1}}}`},
		},
		{
			name:      "exclude an array element by index",
			spec:      Spec{Exclude: []string{"/a/0"}},
			same:      []string{`{"a":[1,2,3]}`, `{"a":[9,2,3]}`},
			different: []string{`{"a":[2,3]}`, `{"a":[1,3,2]}`},
		},
		{
			name:      "unordered is a multiset",
			spec:      Spec{Unordered: []string{"/tags"}},
			same:      []string{`{"tags":["a","b","a"]}`, `{"tags":["b","a","a"]}`, `{"tags":["a","a","b"]}`},
			different: []string{`{"tags":["a","b"]}`, `{"tags":["a","b","b"]}`},
		},
		{
			name:      "unordered nested under wildcard",
			spec:      Spec{Unordered: []string{"/items", "/items/*/tags"}},
			same:      []string{`{"items":[{"tags":[1,2]},{"tags":[3]}]}`, `{"items":[{"tags":[3]},{"tags":[2,1]}]}`},
			different: []string{`{"items":[{"tags":[1,3]},{"tags":[2]}]}`},
		},
		{
			name:      "unordered sorts elements after their exclusions",
			spec:      Spec{Unordered: []string{"/items"}, Exclude: []string{"/items/*/ref"}},
			same:      []string{`{"items":[{"k":1,"ref":"z"},{"k":2,"ref":"a"}]}`, `{"items":[{"k":2,"ref":"b"},{"k":1,"ref":"y"}]}`},
			different: []string{`{"items":[{"k":1},{"k":3}]}`},
		},
		{
			name:      "ordered arrays stay ordered",
			spec:      Spec{Unordered: []string{"/other"}},
			same:      []string{`{"tags":["a","b"]}`},
			different: []string{`{"tags":["b","a"]}`},
		},
		{
			name:      "unordered on a non-array changes nothing",
			spec:      Spec{Unordered: []string{"/tags"}},
			same:      []string{`{"tags":{"b":1,"a":2}}`, `{"tags":{"a":2,"b":1}}`},
			different: []string{`{"tags":[1,2]}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := mustSum(t, tt.spec, orderRequest(tt.same[0]))
			for _, b := range tt.same[1:] {
				if got := mustSum(t, tt.spec, orderRequest(b)); got != first {
					t.Errorf("%s and %s fingerprint differently", tt.same[0], b)
				}
			}
			for _, b := range tt.different {
				if got := mustSum(t, tt.spec, orderRequest(b)); got == first {
					t.Errorf("%s and %s fingerprint alike", tt.same[0], b)
				}
			}
		})
	}
}

func TestSumBodyLimit(t *testing.T) {
	body := []byte(`{"pad":"` + strings.Repeat("x", MaxBodySize) + `"}`)
	if _, err := (Spec{}).Sum(orderRequest(string(body))); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("body of %d bytes: error %v, want ErrBodyTooLarge", len(body), err)
	}
	atLimit := append([]byte(`"`), bytes.Repeat([]byte("y"), MaxBodySize-2)...)
	atLimit = append(atLimit, '"')
	if _, err := (Spec{}).Sum(orderRequest(string(atLimit))); err != nil {
		t.Errorf("body of exactly MaxBodySize bytes: %v", err)
	}
	small := Spec{MaxBodySize: 10}
	if _, err := small.Sum(orderRequest(`{"a":"12345"}`)); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("Spec.MaxBodySize 10, body of 13 bytes: error %v, want ErrBodyTooLarge", err)
	}
	if _, err := small.Sum(orderRequest(`{"a":"1"}`)); err != nil {
		t.Errorf("Spec.MaxBodySize 10, body of 9 bytes: %v", err)
	}
}

func TestSumErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		req  Request
		want error
	}{
		{"malformed body", Spec{}, orderRequest(`{"a":`), ErrInvalidJSON},
		{"duplicate names", Spec{}, orderRequest(`{"a":1,"a":2}`), ErrInvalidJSON},
		{"lone surrogate", Spec{}, orderRequest(`{"a":"\ud800"}`), ErrInvalidJSON},
		{"pointer without slash", Spec{Include: []string{"a"}}, orderRequest(`{}`), ErrInvalidSpec},
		{"bad escape in pointer", Spec{Exclude: []string{"/a~2"}}, orderRequest(`{}`), ErrInvalidSpec},
		{"trailing tilde", Spec{Unordered: []string{"/a~"}}, orderRequest(`{}`), ErrInvalidSpec},
		{"invalid UTF-8 pointer", Spec{Include: []string{"/a\xff"}}, orderRequest(`{}`), ErrInvalidSpec},
		{"wildcard in include", Spec{Include: []string{"/items/*/sku"}}, orderRequest(`{}`), ErrInvalidSpec},
		{"invalid UTF-8 path parameter", Spec{}, Request{Method: "GET", Route: "/o/{id}", PathParams: map[string]string{"id": "\xff"}}, ErrInvalidValue},
		{"invalid UTF-8 method", Spec{}, Request{Method: "G\xffT", Route: "/o"}, ErrInvalidValue},
		{"invalid UTF-8 route", Spec{}, Request{Method: "GET", Route: "/o/\xff"}, ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.spec.Sum(tt.req); !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if tt.want == ErrInvalidSpec {
				if err := tt.spec.Validate(); !errors.Is(err, ErrInvalidSpec) {
					t.Errorf("Validate: error %v, want ErrInvalidSpec", err)
				}
			}
		})
	}
	if err := orderSpec.Validate(); err != nil {
		t.Errorf("Validate(orderSpec) = %v", err)
	}
}

func TestSumString(t *testing.T) {
	var s Sum
	s[0], s[31] = 0xAB, 0x01
	want := "ab" + strings.Repeat("0", 60) + "01"
	if diff := cmp.Diff(want, s.String()); diff != "" {
		t.Errorf("String mismatch (-want +got):\n%s", diff)
	}
}

// TestSumConcurrent shares the pooled documents and Writers between
// goroutines; run with -race.
func TestSumConcurrent(t *testing.T) {
	bodies := []string{orderBody, `{"a":[3,2,1]}`, `[]`, `"x"`, ``}
	want := make([]Sum, len(bodies))
	for i, b := range bodies {
		want[i] = mustSum(t, orderSpec, orderRequest(b))
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 200 {
				k := (g + i) % len(bodies)
				got, err := orderSpec.Sum(orderRequest(bodies[k]))
				if err == nil && got != want[k] {
					err = fmt.Errorf("body %d: got %s, want %s", k, got, want[k])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
