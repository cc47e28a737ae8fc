package generator

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

func TestGoName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"createOrder", "CreateOrder"},
		{"create_order", "CreateOrder"},
		{"create-order", "CreateOrder"},
		{"orders.create", "OrdersCreate"},
		{"CreateOrder", "CreateOrder"},
		{"order_id", "OrderID"},
		{"orderId", "OrderID"},
		{"order_ids", "OrderIDs"},
		{"userIDs", "UserIDs"},
		{"URLsList", "URLsList"},
		{"callback_url", "CallbackURL"},
		{"HTTPServer", "HTTPServer"},
		{"http_server", "HTTPServer"},
		{"json_payload", "JSONPayload"},
		{"sql", "SQL"},
		{"api_key", "APIKey"},
		{"uuid", "UUID"},
		{"identity", "Identity"},
		{"start_time", "StartTime"},
		{"StartTime", "StartTime"},
		{"start-time", "StartTime"},
		{"StartTime<", "StartTime"},
		{"3ds2", "X3ds2"},
		{"1099-misc", "X1099Misc"},
		{"v2_path", "V2Path"},
		{"type", "Type"},
		{"func", "Func"},
		{"école", "École"},
		{"名前", "X名前"},
		{"", "Empty"},
		{"--", "Empty"},
		{"ipv4Address", "Ipv4Address"},
		{"source_type_ach_credit_transfer", "SourceTypeAchCreditTransfer"},
	}
	for _, tt := range tests {
		if got := GoName(tt.in); got != tt.want {
			t.Errorf("GoName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnexportedName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"order_id", "orderID"},
		{"ID", "id"},
		{"HTTPServer", "httpServer"},
		{"type", "type_"},
		{"string", "string_"},
		{"range", "range_"},
		{"3ds", "x3ds"},
		{"", "empty"},
	}
	for _, tt := range tests {
		if got := UnexportedName(tt.in); got != tt.want {
			t.Errorf("UnexportedName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSQLName(t *testing.T) {
	pos := spec.Position{File: "orders.yaml", Line: 3, Col: 5}
	tests := []struct{ in, want string }{
		{"createOrder", "create_order"},
		{"OrderID", "order_id"},
		{"HTTPServer", "http_server"},
		{"orders.items", "orders_items"},
		{"userIDs", "user_ids"},
		{"URLs", "urls"},
		{"IDsList", "ids_list"},
		{"2fa", "_2fa"},
		{"école", "cole"},
		{strings.Repeat("a", 63), strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		got, err := SQLName(tt.in, pos)
		if err != nil || got != tt.want {
			t.Errorf("SQLName(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{strings.Repeat("a", 64), "??"} {
		_, err := SQLName(in, pos)
		var se *spec.Error
		if !errors.As(err, &se) || se.Pos != pos {
			t.Errorf("SQLName(%q) error = %v, want a *spec.Error at %s", in, err, pos)
		}
	}
	_, err := SQLName(strings.Repeat("long_name_", 7), pos)
	if want := "orders.yaml:3:5: SQL identifier " + strings.Repeat("long_name_", 7)[:69] + " is longer than PostgreSQL's 63 bytes"; err == nil || err.Error() != want {
		t.Errorf("SQLName(long) error = %v, want %q", err, want)
	}
}

func TestNamespaceUnique(t *testing.T) {
	ns := NewNamespace()
	ns.Reserve("the DecodeForm method", "DecodeForm")
	p := func(line int) spec.Position { return spec.Position{File: "a.yaml", Line: line, Col: 1} }
	steps := []struct{ name, key, want string }{
		{"StartTime", "start_time", "StartTime"},
		{"StartTime", "StartTime", "StartTime2"},
		{"StartTime", "start-time", "StartTime3"},
		{"StartTime2", "start_time2", "StartTime2_2"},
		{"EtcGMT1", "Etc/GMT+1", "EtcGMT1"},
		{"EtcGMT1", "Etc/GMT-1", "EtcGMT1_2"},
		{"StartTime", "start_time", "StartTime"},
		{"DecodeForm", "decode_form", "DecodeForm2"},
	}
	for i, s := range steps {
		if got := ns.Unique(s.name, s.key, p(i+1)); got != s.want {
			t.Errorf("step %d: Unique(%q, %q) = %q, want %q", i, s.name, s.key, got, s.want)
		}
	}
}

func TestNamespaceClaim(t *testing.T) {
	ns := NewNamespace()
	ns.Reserve("the package's Handler interface", "Handler")
	first := spec.Position{File: "a.yaml", Line: 10, Col: 5}
	second := spec.Position{File: "a.yaml", Line: 20, Col: 5}
	if got, err := ns.Claim("CreateOrder", "operation createOrder", first); err != nil || got != "CreateOrder" {
		t.Fatalf("first Claim = %q, %v", got, err)
	}
	if got, err := ns.Claim("CreateOrder", "operation createOrder", first); err != nil || got != "CreateOrder" {
		t.Fatalf("repeated Claim by the same key = %q, %v", got, err)
	}
	_, err := ns.Claim("CreateOrder", "operation create_order", second)
	want := "a.yaml:20:5: Go name CreateOrder of operation create_order collides with operation createOrder at a.yaml:10:5"
	if err == nil || err.Error() != want {
		t.Errorf("colliding Claim error = %v, want %q", err, want)
	}
	_, err = ns.Claim("Handler", "operation handler", second)
	want = "a.yaml:20:5: Go name Handler of operation handler is reserved for the package's Handler interface"
	if err == nil || err.Error() != want {
		t.Errorf("reserved Claim error = %v, want %q", err, want)
	}
}
