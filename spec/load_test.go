package spec

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/defaults"
)

// loadT loads path and fails the test on an error.
func loadT(t *testing.T, path string) *Document {
	t.Helper()
	doc, err := Load(context.Background(), path, LoadOptions{})
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return doc
}

// findOp returns the operation with method and path, failing the test when
// there is none.
func findOp(t *testing.T, doc *Document, method, path string) *Operation {
	t.Helper()
	for _, op := range doc.Operations {
		if op.Method == method && op.Path == path {
			return op
		}
	}
	t.Fatalf("no operation %s %s", method, path)
	return nil
}

func set[T any](v T, p Position) Field[T] { return Field[T]{Value: v, Pos: p, Set: true} }

func builtin[T any](v T, p Position) Field[T] { return Field[T]{Value: v, Pos: p} }

func TestLoadMergesDefaultsWithPositions(t *testing.T) {
	const file = "testdata/orders.yaml"
	at := func(line, col int) Position { return Position{File: file, Line: line, Col: col} }
	doc := loadT(t, file)

	var got []string
	for _, op := range doc.Operations {
		got = append(got, op.Method+" "+op.Path+" "+op.ID+" "+op.Pos.String())
	}
	want := []string{
		"GET /orders listOrders testdata/orders.yaml:45:5",
		"POST /orders createOrder testdata/orders.yaml:12:5",
		"POST /orders/{id}/cancel cancelOrder testdata/orders.yaml:50:5",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if c := findOp(t, doc, "GET", "/orders").Contract; c != nil {
		t.Errorf("GET /orders has no x-idempotency, got contract %+v", c)
	}

	block := at(19, 7)
	wantCreate := &Contract{
		Pos: block,
		Key: Key{
			In:        builtin(KeyInHeader, block),
			Name:      builtin(defaults.KeyHeader, block),
			Required:  builtin(true, block),
			MaxLength: set(128, at(9, 17)),
		},
		NaturalKey: []Field[string]{set("/shop_id", at(20, 23)), set("/external_order_id", at(20, 33))},
		Scope:      set([]string{"tenant"}, at(6, 10)),
		Fingerprint: Fingerprint{
			Include:   []Field[string]{set("/customer_id", at(22, 21)), set("/items", at(22, 35))},
			Exclude:   []Field[string]{set("/client_sent_at", at(23, 21))},
			Unordered: []Field[string]{set("/items", at(24, 23))},
		},
		Retention:     set(96*time.Hour, at(25, 20)),
		Tombstone:     set(30*24*time.Hour, at(26, 20)),
		Concurrency:   set(ConcurrencyReject, at(27, 22)),
		WaitTimeout:   set(2*time.Second, at(28, 23)),
		Replay:        set(ReplayCurrent, at(29, 17)),
		StoreFailures: set([]string{"4xx", "409"}, at(30, 25)),
		Mode:          set(ModePhased, at(31, 15)),
		Lease:         set(36*time.Hour, at(32, 16)),
		Effects: []Effect{
			{Pos: at(34, 13), Name: set("confirmation_email", at(34, 19)), OnUnknown: set(OnUnknownRetry, at(35, 25))},
			{Pos: at(36, 13), Name: set("charge_card", at(36, 19)), OnUnknown: set(OnUnknownHalt, at(37, 25))},
			{Pos: at(38, 13), Name: set("audit", at(38, 19)), OnUnknown: builtin(OnUnknownRetry, at(38, 13))},
		},
	}
	if diff := cmp.Diff(wantCreate, findOp(t, doc, "POST", "/orders").Contract); diff != "" {
		t.Errorf("createOrder contract (-want +got):\n%s", diff)
	}

	empty := at(54, 7)
	wantCancel := &Contract{
		Pos: empty,
		Key: Key{
			In:        builtin(KeyInHeader, empty),
			Name:      builtin(defaults.KeyHeader, empty),
			Required:  builtin(true, empty),
			MaxLength: set(128, at(9, 17)),
		},
		Scope:         set([]string{"tenant"}, at(6, 10)),
		Retention:     set(72*time.Hour, at(7, 14)),
		Tombstone:     builtin(defaults.Tombstone, empty),
		Concurrency:   builtin(ConcurrencyWait, empty),
		WaitTimeout:   builtin(defaults.WaitTimeout, empty),
		Replay:        builtin(ReplayStored, empty),
		StoreFailures: builtin([]string{"4xx"}, empty),
		Mode:          builtin(ModeAtomic, empty),
		Lease:         builtin(defaults.Lease, empty),
	}
	if diff := cmp.Diff(wantCancel, findOp(t, doc, "POST", "/orders/{id}/cancel").Contract); diff != "" {
		t.Errorf("cancelOrder contract (-want +got):\n%s", diff)
	}
	if len(doc.Defects) != 0 {
		t.Errorf("Defects = %v, want none", doc.Defects)
	}
}

func TestLoadExternalRefPositions(t *testing.T) {
	const root = "testdata/external/root.yaml"
	ext := filepath.Join("testdata", "external", "paths", "payments.yaml")
	doc := loadT(t, root)
	type pos struct{ Op, Contract, Field string }
	got := map[string]pos{}
	for _, op := range doc.Operations {
		c := op.Contract
		if c == nil {
			t.Fatalf("%s %s: no contract", op.Method, op.Path)
		}
		p := pos{Op: op.Pos.String(), Contract: c.Pos.String()}
		switch op.ID {
		case "createPayment":
			p.Field = c.Retention.Pos.String() + " " + c.Key.Name.Pos.String()
		case "refund":
			p.Field = c.Concurrency.Pos.String()
		case "orderShipped":
			p.Field = c.Key.In.Pos.String() + " " + c.Key.Name.Pos.String()
		}
		got[op.Method+" "+op.Path] = p
	}
	want := map[string]pos{
		"POST /payments": {Op: ext + ":1:1", Contract: ext + ":3:3", Field: ext + ":4:16 " + ext + ":6:13"},
		"PUT /refunds":   {Op: ext + ":15:3", Contract: ext + ":17:5", Field: ext + ":18:20"},
		"POST orderShipped": {Op: root + ":10:5", Contract: root + ":12:7",
			Field: root + ":13:19 " + root + ":13:31"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
	last := doc.Operations[len(doc.Operations)-1]
	if !last.Webhook || last.Path != "orderShipped" {
		t.Errorf("last operation = %s %s (webhook %v), want the webhook orderShipped last", last.Method, last.Path, last.Webhook)
	}
	if doc.OpenAPI.Paths.Value("/payments").Post.Responses.Value("201").Value.Content["application/json"].Schema.Value.Properties["id"] == nil {
		t.Error("the schema behind ../schemas.yaml#/Payment was not resolved")
	}
}

// writeSpec writes text to name in a temporary directory and returns its
// path.
func writeSpec(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	writeFile(t, p, text)
	return p
}

// writeFile writes text to the file p.
func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
