package storedreq_test

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/storedreq"
)

// A stored request decodes to what was stored, less the credentials, and
// storing it leaves the caller's header as it was.
func TestEncodeDropsCredentialsAndRoundTrips(t *testing.T) {
	header := http.Header{"Authorization": {"Bearer secret"}, "Cookie": {"s=1"},
		"Proxy-Authorization": {"Basic x"}, "Idempotency-Key": {"k-1"}, "Content-Type": {"application/json"}}
	in := storedreq.Request{Method: "POST", Route: "/payments/{id}", PathParams: map[string]string{"id": "7"},
		Query: url.Values{"expand": {"a", "b"}}, Header: header, Body: []byte(`{"amount":100}`)}
	b, err := storedreq.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(header) != 5 {
		t.Fatalf("Encode changed the caller's header: %v", header)
	}
	out, err := storedreq.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.Header = http.Header{"Idempotency-Key": {"k-1"}, "Content-Type": {"application/json"}}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("decoded %+v, want %+v", out, want)
	}
}

// What another adapter stored fails to decode or has no method, and a
// request stored without headers decodes with an empty, usable header.
func TestDecodeOtherEncodings(t *testing.T) {
	if _, err := storedreq.Decode([]byte("\x00binary")); err == nil {
		t.Fatal("Decode accepted bytes that are not JSON")
	}
	r, err := storedreq.Decode([]byte(`{"message_id":"m-1"}`))
	if err != nil || r.Method != "" {
		t.Fatalf("Decode(other JSON) = %+v, %v; want no method, no error", r, err)
	}
	if r.Header == nil {
		t.Fatal("Decode left the header nil")
	}
}
