package spec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/defaults"
)

// ruleTestSpec is the OpenAPI document the rule tests annotate by hand.
const ruleTestSpec = `openapi: 3.0.3
info: {title: rules, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  parameters:
    IdempotencyKey: {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
  schemas:
    Base:
      type: object
      required: [shop_id]
      properties:
        shop_id: {type: string}
    Item:
      type: object
      required: [sku, quantity]
      properties:
        sku: {type: string}
        quantity: {type: integer}
paths:
  /orders:
    post:
      operationId: createOrder
      parameters: [{$ref: '#/components/parameters/IdempotencyKey'}]
      requestBody:
        content:
          application/json:
            schema:
              allOf:
                - $ref: '#/components/schemas/Base'
                - type: object
                  required: [event_id, items]
                  properties:
                    event_id: {type: string}
                    count: {type: integer}
                    note: {type: string}
                    items: {type: array, items: {$ref: '#/components/schemas/Item'}}
                    delivery:
                      type: object
                      properties:
                        city: {type: string}
                        a/b: {type: string}
                        t~x: {type: string}
                    audit:
                      type: object
                      properties:
                        trace_id: {type: string}
                    client_sent_at: {type: string, format: date-time}
                    meta: {type: object, additionalProperties: true}
                    choice:
                      oneOf:
                        - {type: object, required: [card], properties: {card: {type: string}}}
                        - {type: object, required: [iban], properties: {iban: {type: string}}}
      responses:
        "201": {description: created}
  /orders/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
      - $ref: '#/components/parameters/IdempotencyKey'
    get:
      operationId: getOrder
      responses:
        "200": {description: ok}
    delete:
      operationId: deleteOrder
      security: []
      responses:
        "204": {description: deleted}
  /orders/{id}/cancel:
    post:
      operationId: cancelOrder
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: x-retry-key, in: header, schema: {type: string}}
      responses:
        "200": {description: ok}
`

// rtAt is a position on line in the rule test file.
func rtAt(line int) Position { return Position{File: "rules.yaml", Line: line, Col: 3} }

// rtSet is a contract value given on line.
func rtSet[T any](v T, line int) Field[T] { return Field[T]{Value: v, Pos: rtAt(line), Set: true} }

// rtBuiltin is a built-in default, positioned at the x-idempotency block.
func rtBuiltin[T any](v T) Field[T] { return Field[T]{Value: v, Pos: rtAt(1)} }

// rtPtrs makes a list of pointers on consecutive lines from line.
func rtPtrs(line int, values ...string) []Field[string] {
	out := make([]Field[string], len(values))
	for i, v := range values {
		out[i] = rtSet(v, line+i)
	}
	return out
}

// rtGoodContract is a contract of createOrder on which no rule fires.
func rtGoodContract() *Contract {
	return &Contract{
		Pos: rtAt(1),
		Key: Key{
			In:        rtSet(KeyInHeader, 2),
			Name:      rtSet("Idempotency-Key", 3),
			Required:  rtSet(true, 4),
			MaxLength: rtBuiltin(defaults.KeyMaxLength),
		},
		Scope:       rtSet([]string{"tenant"}, 5),
		Fingerprint: Fingerprint{Exclude: rtPtrs(6, "/client_sent_at", "/audit")},
		Retention:   rtSet(72*time.Hour, 8),
		Tombstone:   rtBuiltin(defaults.Tombstone),
		Concurrency: rtSet(ConcurrencyWait, 9),
		WaitTimeout: rtBuiltin(defaults.WaitTimeout),
		Replay:      rtBuiltin(ReplayStored),
		Mode:        rtSet(ModeAtomic, 10),
		Lease:       rtBuiltin(defaults.Lease),
		Effects: []Effect{
			{Pos: rtAt(11), Name: rtSet("confirmation_email", 11), OnUnknown: rtSet(OnUnknownRetry, 12)},
		},
	}
}

// loadRuleTestDoc builds a Document from ruleTestSpec the way the loader
// does, without contracts.
func loadRuleTestDoc(t testing.TB) *Document {
	t.Helper()
	loader := openapi3.NewLoader()
	oas, err := loader.LoadFromData([]byte(ruleTestSpec))
	if err != nil {
		t.Fatalf("load test spec: %v", err)
	}
	if err := oas.Validate(context.Background()); err != nil {
		t.Fatalf("validate test spec: %v", err)
	}
	doc := &Document{Path: "rules.yaml", OpenAPI: oas}
	for _, path := range oas.Paths.InMatchingOrder() {
		item := oas.Paths.Value(path)
		for method, op := range item.Operations() {
			doc.Operations = append(doc.Operations, &Operation{
				ID: op.OperationID, Method: method, Path: path, Pos: rtAt(100),
				Op: op, PathItem: item,
			})
		}
	}
	slices.SortFunc(doc.Operations, func(a, b *Operation) int { return strings.Compare(a.ID, b.ID) })
	return doc
}

// rtOperation returns the operation of doc with the operationId.
func rtOperation(t testing.TB, doc *Document, id string) *Operation {
	t.Helper()
	for _, op := range doc.Operations {
		if op.ID == id {
			return op
		}
	}
	t.Fatalf("no operation %s", id)
	return nil
}

// rtRenameMedia offers createOrder's request body under the media type
// name instead of application/json, with schema instead of its own unless
// schema is nil.
func rtRenameMedia(t testing.TB, doc *Document, name string, schema *openapi3.Schema) {
	t.Helper()
	content := rtOperation(t, doc, "createOrder").Op.RequestBody.Value.Content
	m := *content["application/json"]
	delete(content, "application/json")
	if schema != nil {
		m.Schema = &openapi3.SchemaRef{Value: schema}
	}
	content[name] = &m
}

// rtPhased makes c phased with a lease of 30s and the steps.
func rtPhased(c *Contract, steps ...Step) {
	c.Mode = rtSet(ModePhased, 10)
	c.Lease = rtSet(30*time.Second, 13)
	c.Steps = steps
}

// rtStep is a local step named on line.
func rtStep(line int, name string) Step {
	return Step{Pos: rtAt(line), Name: rtSet(name, line), External: Field[bool]{Pos: rtAt(line)}}
}

// rtCall is an external step named on line, with external, on-unknown
// and timeout on the lines after it.
func rtCall(line int, name string, onUnknown OnUnknown, timeout time.Duration) Step {
	return Step{Pos: rtAt(line), Name: rtSet(name, line), External: rtSet(true, line+1), OnUnknown: rtSet(onUnknown, line+2), Timeout: rtSet(timeout, line+3)}
}

// rtDocument409 documents a 409 response on createOrder.
func rtDocument409(d *Document) {
	for _, op := range d.Operations {
		if op.ID == "createOrder" {
			op.Op.Responses.Set("409", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("conflict")})
		}
	}
}

// rtFinding is the part of a diagnostic a rule test pins: rule and line.
type rtFinding struct {
	Rule string
	Line int
}

func TestRules(t *testing.T) {
	tests := []struct {
		name string
		// op is the annotated operation; createOrder when empty.
		op     string
		mutate func(c *Contract)
		doc    func(d *Document)
		opts   CheckOptions
		want   []rtFinding
		// wantText, when set, must occur in the first finding's message.
		wantText string
	}{
		{name: "good contract", mutate: func(*Contract) {}},
		{
			name: "fingerprint pointers that exist",
			mutate: func(c *Contract) {
				c.Fingerprint = Fingerprint{
					Include:   rtPtrs(20, "/items", "/items/0/quantity", "/delivery/a~1b", "/delivery/t~0x", "/meta", "/choice", "/shop_id"),
					Exclude:   rtPtrs(30, "/items/*/sku", "/delivery/*", "/choice"),
					Unordered: rtPtrs(40, "/items"),
				}
			},
		},
		{
			name:     "IDEM001 include of a missing property",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/customer")} },
			want:     []rtFinding{{"IDEM001", 20}},
			wantText: `the request body has no property "customer"`,
		},
		{
			name:     "IDEM001 array property without element token",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/items/sku")} },
			want:     []rtFinding{{"IDEM001", 20}},
			wantText: "/items is an array: address its elements with /items/*",
		},
		{
			name:     "IDEM001 wildcard in include",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/items/*/sku")} },
			want:     []rtFinding{{"IDEM001", 20}},
			wantText: "include pointers do not take",
		},
		{
			name:     "IDEM001 escaped name that is not there",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/delivery/a~1c")} },
			want:     []rtFinding{{"IDEM001", 20}},
			wantText: `/delivery has no property "a/c"`,
		},
		{
			name: "IDEM001 into a string, in exclude and unordered",
			mutate: func(c *Contract) {
				c.Fingerprint.Exclude = append(c.Fingerprint.Exclude, rtSet("/shop_id/x", 20))
				c.Fingerprint.Unordered = rtPtrs(21, "/lines")
			},
			want: []rtFinding{{"IDEM001", 20}, {"IDEM001", 21}},
		},
		{
			name:     "IDEM001 member wildcard on a string",
			mutate:   func(c *Contract) { c.Fingerprint.Exclude = append(c.Fingerprint.Exclude, rtSet("/note/*", 20)) },
			want:     []rtFinding{{"IDEM001", 20}},
			wantText: "/note is string, which has no members for * to match",
		},
		{
			name:     "IDEM001 operation without a body",
			op:       "deleteOrder",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/reason")} },
			want:     []rtFinding{{"IDEM001", 20}},
			wantText: "deleteOrder has no request body schema",
		},
		{
			name:   "IDEM002 natural key not in schema",
			mutate: func(c *Contract) { c.NaturalKey = rtPtrs(20, "/shop_id", "/external_id") },
			want:   []rtFinding{{"IDEM002", 21}},
		},
		{
			name:   "IDEM003 unordered on a string",
			mutate: func(c *Contract) { c.Fingerprint.Unordered = rtPtrs(20, "/items", "/note") },
			want:   []rtFinding{{"IDEM003", 21}},
		},
		{
			name: "IDEM004 natural key not required",
			mutate: func(c *Contract) {
				c.NaturalKey = rtPtrs(20, "/shop_id", "/event_id", "/note", "/delivery/city", "/items/*/sku")
			},
			want:     []rtFinding{{"IDEM004", 22}, {"IDEM004", 23}, {"IDEM004", 24}},
			wantText: "the request schema does not require /note",
		},
		{
			name: "IDEM025 natural key left out of the fingerprint",
			mutate: func(c *Contract) {
				c.NaturalKey = rtPtrs(20, "/shop_id", "/event_id")
				c.Fingerprint = Fingerprint{Include: rtPtrs(30, "/shop_id", "/items")}
			},
			want:     []rtFinding{{"IDEM025", 21}},
			wantText: "natural-key /event_id is not significant for the fingerprint (fingerprint.include does not cover it)",
		},
		{
			name: "IDEM025 natural key excluded",
			mutate: func(c *Contract) {
				c.NaturalKey = rtPtrs(20, "/shop_id", "/event_id")
				c.Fingerprint = Fingerprint{Include: rtPtrs(30, "/shop_id", "/event_id", "/items"), Exclude: rtPtrs(40, "/event_id")}
			},
			want:     []rtFinding{{"IDEM025", 21}},
			wantText: "fingerprint.exclude /event_id removes it",
		},
		{
			name: "IDEM025 quiet when the includes cover the natural key",
			mutate: func(c *Contract) {
				c.NaturalKey = rtPtrs(20, "/shop_id", "/event_id")
				c.Fingerprint = Fingerprint{Include: rtPtrs(30, "/shop_id", "/event_id", "/items")}
			},
		},
		{
			name: "IDEM005 retention shorter than lease",
			mutate: func(c *Contract) {
				c.Lease = rtSet(48*time.Hour, 20)
				c.Retention = rtSet(24*time.Hour, 8)
			},
			want:     []rtFinding{{"IDEM005", 8}},
			wantText: "retention 24h is shorter than the lease 48h",
		},
		{
			name:     "IDEM006 retention under a day",
			mutate:   func(c *Contract) { c.Retention = rtSet(90*time.Minute, 8) },
			want:     []rtFinding{{"IDEM006", 8}},
			wantText: "retention 90m",
		},
		{
			name:   "IDEM007 empty scope with security schemes",
			mutate: func(c *Contract) { c.Scope = rtSet([]string{}, 5) },
			want:   []rtFinding{{"IDEM007", 5}},
		},
		{
			name:   "IDEM007 quiet without security schemes",
			mutate: func(c *Contract) { c.Scope = rtBuiltin([]string(nil)) },
			doc:    func(d *Document) { d.OpenAPI.Components.SecuritySchemes = nil },
		},
		{
			name:   "IDEM007 quiet on an explicitly public operation",
			op:     "deleteOrder",
			mutate: func(c *Contract) { c.Fingerprint = Fingerprint{}; c.Scope = rtBuiltin([]string(nil)) },
		},
		{
			name:     "IDEM008 whole body with a volatile field",
			mutate:   func(c *Contract) { c.Fingerprint.Exclude = nil },
			want:     []rtFinding{{"IDEM008", 1}, {"IDEM008", 1}},
			wantText: "has /audit/trace_id",
		},
		{
			name:     "IDEM008 volatile include",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/items", "/client_sent_at")} },
			want:     []rtFinding{{"IDEM008", 21}},
			wantText: `looks volatile ("client_sent_at")`,
		},
		{
			name:     "IDEM008 volatile field below an include",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/audit")} },
			want:     []rtFinding{{"IDEM008", 20}},
			wantText: "takes in /audit/trace_id",
		},
		{
			name: "IDEM008 quiet when the volatile field is excluded",
			mutate: func(c *Contract) {
				c.Fingerprint = Fingerprint{Include: rtPtrs(20, "/audit"), Exclude: rtPtrs(21, "/audit/trace_id")}
			},
		},
		{
			name:     "IDEM009 key header not documented",
			mutate:   func(c *Contract) { c.Key.Name = rtSet("X-Request-Key", 3) },
			want:     []rtFinding{{"IDEM009", 3}},
			wantText: "X-Request-Key",
		},
		{
			name:   "IDEM009 header names compare case-insensitively",
			mutate: func(c *Contract) { c.Key.Name = rtSet("idempotency-key", 3) },
		},
		{
			name:   "IDEM009 quiet for a path-item parameter",
			op:     "deleteOrder",
			mutate: func(c *Contract) { c.Fingerprint = Fingerprint{} },
		},
		{
			name:   "IDEM009 default key header undocumented",
			op:     "cancelOrder",
			mutate: func(c *Contract) { c.Fingerprint = Fingerprint{}; c.Key.Name = rtBuiltin(defaults.KeyHeader) },
			want:   []rtFinding{{"IDEM009", 1}},
		},
		{
			name:   "IDEM010 body key on a string",
			mutate: func(c *Contract) { c.Key.In = rtSet(KeyInBody, 2); c.Key.Name = rtSet("/event_id", 3) },
		},
		{
			name:     "IDEM010 body key on an integer",
			mutate:   func(c *Contract) { c.Key.In = rtSet(KeyInBody, 2); c.Key.Name = rtSet("/count", 3) },
			want:     []rtFinding{{"IDEM010", 3}},
			wantText: "key.name /count is integer",
		},
		{
			name:   "IDEM010 body key missing",
			mutate: func(c *Contract) { c.Key.In = rtSet(KeyInBody, 2); c.Key.Name = rtSet("/event", 3) },
			want:   []rtFinding{{"IDEM010", 3}},
		},
		{
			name:   "IDEM010 body key in a free-form object",
			mutate: func(c *Contract) { c.Key.In = rtSet(KeyInBody, 2); c.Key.Name = rtSet("/meta/id", 3) },
		},
		{
			name: "IDEM011 duplicate effect",
			mutate: func(c *Contract) {
				c.Effects = append(c.Effects, Effect{Pos: rtAt(20), Name: rtSet("confirmation_email", 20), OnUnknown: rtSet(OnUnknownVerify, 21)})
			},
			want:     []rtFinding{{"IDEM011", 20}},
			wantText: "first at line 11",
		},
		{
			name: "IDEM012 effect name not an identifier",
			mutate: func(c *Contract) {
				c.Effects = append(c.Effects, Effect{Pos: rtAt(20), Name: rtSet("SendEmail", 20), OnUnknown: rtBuiltin(OnUnknownRetry)})
			},
			want: []rtFinding{{"IDEM012", 20}},
		},
		{
			name: "IDEM013 phased without lease",
			mutate: func(c *Contract) {
				c.Mode = rtSet(ModePhased, 10)
				c.Steps = []Step{rtStep(20, "record_order")}
			},
			want: []rtFinding{{"IDEM013", 10}},
		},
		{
			name: "a phased payment with local and external steps",
			doc:  rtDocument409,
			mutate: func(c *Contract) {
				rtPhased(c, rtStep(20, "record_payment"), rtCall(30, "charge_card", OnUnknownHalt, 10*time.Second), rtStep(40, "record_outcome"))
			},
		},
		{
			name:     "IDEM030 phased without steps",
			mutate:   func(c *Contract) { rtPhased(c) },
			want:     []rtFinding{{"IDEM030", 10}},
			wantText: "createOrder is phased but declares no steps",
		},
		{
			name:     "IDEM031 steps on an atomic operation",
			mutate:   func(c *Contract) { c.Steps = []Step{rtStep(20, "record_order")} },
			want:     []rtFinding{{"IDEM031", 20}},
			wantText: "(mode: atomic)",
		},
		{
			name: "IDEM031 steps on the default mode",
			mutate: func(c *Contract) {
				c.Mode = rtBuiltin(ModeAtomic)
				c.Steps = []Step{rtStep(20, "record_order")}
			},
			want:     []rtFinding{{"IDEM031", 20}},
			wantText: "(atomic is the default mode)",
		},
		{
			name:     "IDEM032 duplicate step name",
			mutate:   func(c *Contract) { rtPhased(c, rtStep(20, "record"), rtStep(21, "charge"), rtStep(22, "record")) },
			want:     []rtFinding{{"IDEM032", 22}},
			wantText: `step "record" is declared twice (first at line 20)`,
		},
		{
			name:   "IDEM033 step name not an identifier",
			mutate: func(c *Contract) { rtPhased(c, rtStep(20, "Record-Payment"), rtStep(21, "record_outcome")) },
			want:   []rtFinding{{"IDEM033", 20}},
		},
		{
			name: "IDEM034 external step without on-unknown and timeout",
			mutate: func(c *Contract) {
				charge := rtCall(20, "charge_card", OnUnknownVerify, time.Second)
				charge.OnUnknown, charge.Timeout = Field[OnUnknown]{}, Field[time.Duration]{}
				rtPhased(c, charge, rtStep(30, "record_outcome"))
			},
			want:     []rtFinding{{"IDEM034", 21}, {"IDEM034", 21}},
			wantText: `external step "charge_card" has no on-unknown`,
		},
		{
			name: "IDEM035 on-unknown and timeout on a local step",
			mutate: func(c *Contract) {
				record := rtCall(20, "record_payment", OnUnknownRetry, time.Second)
				record.External = rtSet(false, 21)
				rtPhased(c, record, rtStep(30, "record_outcome"))
			},
			want:     []rtFinding{{"IDEM035", 22}, {"IDEM035", 23}},
			wantText: `step "record_payment" is local, so on-unknown retry would do nothing`,
		},
		{
			name: "IDEM036 last step external",
			mutate: func(c *Contract) {
				rtPhased(c, rtStep(20, "record_payment"), rtCall(30, "charge_card", OnUnknownVerify, time.Second))
			},
			want:     []rtFinding{{"IDEM036", 31}},
			wantText: `the last step "charge_card" is external`,
		},
		{
			name: "IDEM037 lease as long as a step's timeout",
			mutate: func(c *Contract) {
				rtPhased(c, rtCall(20, "charge_card", OnUnknownVerify, 30*time.Second), rtStep(30, "record_outcome"))
			},
			want:     []rtFinding{{"IDEM037", 23}},
			wantText: `timeout 30s of step "charge_card" is not shorter than the lease 30s (line 13)`,
		},
		{
			name: "IDEM037 default lease shorter than a step's timeout",
			mutate: func(c *Contract) {
				rtPhased(c, rtCall(2, "charge_card", OnUnknownVerify, time.Minute), rtStep(30, "record_outcome"))
				c.Lease = rtBuiltin(defaults.Lease)
			},
			want:     []rtFinding{{"IDEM037", 5}, {"IDEM013", 10}},
			wantText: "not shorter than the lease 30s (the built-in default)",
		},
		{
			name: "IDEM038 halt without a documented 409",
			mutate: func(c *Contract) {
				rtPhased(c, rtCall(20, "charge_card", OnUnknownHalt, time.Second), rtStep(30, "record_outcome"))
			},
			want:     []rtFinding{{"IDEM038", 22}},
			wantText: "createOrder documents no 409 response",
		},
		{
			name: "IDEM038 quiet with a 4XX range",
			doc: func(d *Document) {
				rtOperation(t, d, "createOrder").Op.Responses.Set("4XX", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("problem")})
			},
			mutate: func(c *Contract) {
				rtPhased(c, rtCall(20, "charge_card", OnUnknownHalt, time.Second), rtStep(30, "record_outcome"))
			},
		},
		{
			name: "IDEM039 step output names no schema",
			mutate: func(c *Contract) {
				record := rtStep(20, "record_payment")
				record.Output = rtSet("#/components/schemas/Itme", 21)
				outcome := rtStep(30, "record_outcome")
				outcome.Output = rtSet("#/components/schemas/Item", 31)
				rtPhased(c, record, outcome)
			},
			want:     []rtFinding{{"IDEM039", 21}},
			wantText: `output "#/components/schemas/Itme" of step "record_payment" names no schema`,
		},
		{
			name: "IDEM039 step output not a component reference",
			mutate: func(c *Contract) {
				record := rtStep(20, "record_payment")
				record.Output = rtSet("#/components/schemas/Item/properties/sku", 21)
				rtPhased(c, record)
			},
			want:     []rtFinding{{"IDEM039", 21}},
			wantText: "is not a component schema reference",
		},
		{
			name: "halt on atomic is allowed (IDEM014 retired)",
			mutate: func(c *Contract) {
				c.Effects = append(c.Effects, Effect{Pos: rtAt(20), Name: rtSet("charge_card", 20), OnUnknown: rtSet(OnUnknownHalt, 21)})
			},
			want: nil,
		},
		{
			name: "IDEM027 quiet on a component payload",
			mutate: func(c *Contract) {
				c.Effects = append(c.Effects, Effect{Pos: rtAt(20), Name: rtSet("notify", 20), OnUnknown: rtBuiltin(OnUnknownRetry), Payload: rtSet("#/components/schemas/Item", 22)})
			},
		},
		{
			name: "IDEM027 payload names no schema",
			mutate: func(c *Contract) {
				c.Effects = append(c.Effects, Effect{Pos: rtAt(20), Name: rtSet("notify", 20), OnUnknown: rtBuiltin(OnUnknownRetry), Payload: rtSet("#/components/schemas/Itme", 22)})
			},
			want:     []rtFinding{{"IDEM027", 22}},
			wantText: "names no schema under components/schemas",
		},
		{
			name: "IDEM027 payload that is not a component reference",
			mutate: func(c *Contract) {
				c.Effects = append(c.Effects,
					Effect{Pos: rtAt(20), Name: rtSet("notify", 20), OnUnknown: rtBuiltin(OnUnknownRetry), Payload: rtSet("Item", 22)},
					Effect{Pos: rtAt(24), Name: rtSet("bill", 24), OnUnknown: rtBuiltin(OnUnknownRetry), Payload: rtSet("#/components/schemas/Item/properties/sku", 26)})
			},
			want:     []rtFinding{{"IDEM027", 22}, {"IDEM027", 26}},
			wantText: "is not a component schema reference",
		},
		{
			name:   "IDEM015 contract on GET",
			op:     "getOrder",
			mutate: func(c *Contract) { c.Fingerprint = Fingerprint{} },
			want:   []rtFinding{{"IDEM015", 1}},
		},
		{
			name:   "IDEM016 off by default",
			mutate: func(*Contract) {},
		},
		{
			name:     "IDEM016 mutation without contract",
			mutate:   func(*Contract) {},
			opts:     CheckOptions{RequireMutations: true},
			want:     []rtFinding{{"IDEM016", 100}, {"IDEM016", 100}},
			wantText: "cancelOrder changes state",
		},
		{
			name: "IDEM017 wait-timeout with reject",
			mutate: func(c *Contract) {
				c.Concurrency = rtSet(ConcurrencyReject, 9)
				c.WaitTimeout = rtSet(2*time.Second, 20)
			},
			want: []rtFinding{{"IDEM017", 20}},
		},
		{
			name:   "IDEM017 quiet with the built-in wait-timeout",
			mutate: func(c *Contract) { c.Concurrency = rtSet(ConcurrencyReject, 9) },
		},
		{
			name:   "IDEM018 optional key",
			mutate: func(c *Contract) { c.Key.Required = rtSet(false, 4) },
			want:   []rtFinding{{"IDEM018", 4}},
		},
		{
			name:     "IDEM019 key parameter documented as optional",
			op:       "cancelOrder",
			mutate:   func(c *Contract) { c.Fingerprint = Fingerprint{}; c.Key.Name = rtSet("X-Retry-Key", 3) },
			want:     []rtFinding{{"IDEM019", 3}},
			wantText: "document it as optional",
		},
		{
			name: "IDEM019 quiet when the key is optional too",
			op:   "cancelOrder",
			mutate: func(c *Contract) {
				c.Fingerprint = Fingerprint{}
				c.Key.Name = rtSet("X-Retry-Key", 3)
				c.Key.Required = rtSet(false, 4)
			},
			want: []rtFinding{{"IDEM018", 4}},
		},
		{
			name: "IDEM010 body key on a form body",
			doc:  func(d *Document) { rtRenameMedia(t, d, "application/x-www-form-urlencoded", nil) },
			mutate: func(c *Contract) {
				c.Key.In = rtSet(KeyInBody, 2)
				c.Key.Name = rtSet("/event_id", 3)
			},
			want:     []rtFinding{{"IDEM010", 2}},
			wantText: "the key is read from a JSON body",
		},
		{
			name: "several findings sorted by line",
			mutate: func(c *Contract) {
				c.Retention = rtSet(time.Hour, 8)
				c.Scope = rtSet([]string{}, 5)
				c.Key.Name = rtSet("X-Key", 3)
			},
			want: []rtFinding{{"IDEM009", 3}, {"IDEM007", 5}, {"IDEM006", 8}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := loadRuleTestDoc(t)
			if tt.doc != nil {
				tt.doc(doc)
			}
			id := tt.op
			if id == "" {
				id = "createOrder"
			}
			c := rtGoodContract()
			tt.mutate(c)
			rtOperation(t, doc, id).Contract = c
			var diags []Diagnostic
			for _, d := range Check(doc, tt.opts).Diagnostics {
				// The shared spec's union is TestUnionNotValidated's.
				if d.Rule != ruleUnionNotValidated.ID {
					diags = append(diags, d)
				}
			}
			got := make([]rtFinding, len(diags))
			for i, d := range diags {
				got[i] = rtFinding{d.Rule, d.Pos.Line}
			}
			if diff := cmp.Diff(tt.want, got, cmpEmpty); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%s", diff, rtDescribe(diags))
			}
			if tt.wantText != "" && !strings.Contains(diags[0].Message, tt.wantText) {
				t.Errorf("message %q does not contain %q", diags[0].Message, tt.wantText)
			}
			for _, d := range diags {
				if d.Hint == "" || d.Path == "" && d.Rule != "IDEM016" {
					t.Errorf("%s has no hint or path: %+v", d.Rule, d)
				}
			}
		})
	}
}

// rtCmpEmpty makes a nil and an empty list of findings equal.
var cmpEmpty = cmp.Comparer(func(a, b []rtFinding) bool {
	return len(a) == 0 && len(b) == 0 || slices.Equal(a, b)
})

// rtDescribe lists diagnostics for a failure message.
func rtDescribe(diags []Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "%s %s %s: %s (%s)\n", d.Pos, d.Rule, d.Path, d.Message, d.Hint)
	}
	return b.String()
}

func TestCheckSkipsBlockedOperationsAndKeepsDefects(t *testing.T) {
	doc := loadRuleTestDoc(t)
	defect := Diagnostic{Pos: rtAt(50), Severity: SeverityError, Rule: "OAS001", Message: "dangling $ref"}
	doc.Defects = []Diagnostic{defect}
	op := rtOperation(t, doc, "createOrder")
	c := rtGoodContract()
	c.Retention = rtSet(time.Hour, 8)
	op.Contract = c
	op.Blocked = []Diagnostic{defect}
	found := Check(doc, CheckOptions{})
	if diff := cmp.Diff([]Diagnostic{defect}, found.Diagnostics); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[*Operation][]Diagnostic{op: {defect}}, found.Unfit); diff != "" {
		t.Errorf("Unfit (-want +got):\n%s", diff)
	}
}

// TestCheckUnfit checks that an annotated operation's errors, and only
// its errors, make it unfit: warnings do not, and neither does an error
// of an operation without a contract (IDEM016).
func TestCheckUnfit(t *testing.T) {
	doc := loadRuleTestDoc(t)
	op := rtOperation(t, doc, "createOrder")
	c := rtGoodContract()
	c.Retention = rtSet(time.Hour, 8)  // IDEM006, a warning
	c.NaturalKey = rtPtrs(50, "/nope") // IDEM002, an error
	op.Contract = c
	found := Check(doc, CheckOptions{RequireMutations: true})
	var unfit []string
	for o, diags := range found.Unfit {
		for _, d := range diags {
			unfit = append(unfit, o.ID+" "+d.Rule)
		}
	}
	if diff := cmp.Diff([]string{"createOrder IDEM002"}, unfit); diff != "" {
		t.Errorf("Unfit (-want +got):\n%s", diff)
	}
	rules := map[string]bool{}
	for _, d := range found.Diagnostics {
		rules[d.Rule] = true
	}
	if !rules["IDEM006"] || !rules["IDEM016"] {
		t.Errorf("findings %v lack the warning or the opt-in error", rules)
	}
}

func TestRulesAreDocumentedAndOrdered(t *testing.T) {
	rules := Rules()
	seen := map[string]bool{}
	// The generator's planner holds these ids: what it cannot build.
	planner := []string{"IDEM020", "IDEM021", "IDEM022", "IDEM023", "IDEM024"}
	skipped := func(n int) bool {
		id := fmt.Sprintf("IDEM%03d", n)
		return slices.Contains(retiredRules, id) || slices.Contains(planner, id)
	}
	next := 1
	for i, r := range rules {
		for skipped(next) {
			next++
		}
		if want := fmt.Sprintf("IDEM%03d", next); r.ID != want {
			t.Errorf("rule %d has id %s, want %s (ids are dense but for the retired ones and the planner's, and ordered)", i, r.ID, want)
		}
		next++
		if r.Name == "" || r.Summary == "" || r.check == nil || seen[r.Name] {
			t.Errorf("rule %s: missing or duplicate name, summary or check", r.ID)
		}
		if r.OptIn != (r.enabledBy != nil) {
			t.Errorf("rule %s: OptIn and enabledBy disagree", r.ID)
		}
		seen[r.Name] = true
	}
}

func TestIsVolatileName(t *testing.T) {
	for name, want := range map[string]bool{
		"client_sent_at": true, "sentAt": true, "timestamp": true, "request_timestamp": true,
		"nonce": true, "x-request-id": true, "requestId": true, "trace_id": true, "traceparent": true,
		"correlation_id": true,
		"customer_id":    false, "items": false, "at": false, "_at": false, "format": false, "cat": false,
		"delivery": false, "status": false,
	} {
		if got := isVolatileName(name); got != want {
			t.Errorf("isVolatileName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		72 * time.Hour: "72h", 30 * 24 * time.Hour: "30d", 24 * time.Hour: "24h",
		90 * time.Minute: "90m", 5 * time.Second: "5s", 1500 * time.Millisecond: "1.5s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// IDEM026: the union of the shared spec's request body, two object
// branches, is checked by the decoder and not reported; given properties
// beside its branches it is reported once, at the union, and nothing
// inside it.
func TestUnionNotValidated(t *testing.T) {
	doc := loadRuleTestDoc(t)
	op := rtOperation(t, doc, "createOrder")
	op.Contract = rtGoodContract()
	findings := func() []Diagnostic {
		var got []Diagnostic
		for _, d := range Check(doc, CheckOptions{}).Diagnostics {
			if d.Rule == ruleUnionNotValidated.ID {
				got = append(got, d)
			}
		}
		return got
	}
	if got := findings(); len(got) != 0 {
		t.Fatalf("a union the decoder checks is reported:\n%s", rtDescribe(got))
	}
	choice := op.Op.RequestBody.Value.Content["application/json"].Schema.Value.AllOf[1].Value.Properties["choice"].Value
	choice.Properties = openapi3.Schemas{"reference": openapi3.NewStringSchema().NewRef()}
	got := findings()
	if len(got) != 1 || got[0].Pos.Line != 100 || got[0].Severity != SeverityWarning || !strings.Contains(got[0].Message, "/choice") ||
		!strings.Contains(got[0].Message, "it has properties beside its branches") {
		t.Fatalf("findings:\n%s", rtDescribe(got))
	}
}

// IDEM029: the shared spec's choice, two object branches that each
// require a member, is not reported; a branch that requires nothing is
// reported once, by its ordinal; as an anyOf, nothing is.
func TestOneOfOverlap(t *testing.T) {
	doc := loadRuleTestDoc(t)
	op := rtOperation(t, doc, "createOrder")
	op.Contract = rtGoodContract()
	findings := func() []Diagnostic {
		var got []Diagnostic
		for _, d := range Check(doc, CheckOptions{}).Diagnostics {
			if d.Rule == ruleOneOfOverlap.ID {
				got = append(got, d)
			}
		}
		return got
	}
	if got := findings(); len(got) != 0 {
		t.Fatalf("findings:\n%s", rtDescribe(got))
	}
	choice := op.Op.RequestBody.Value.Content["application/json"].Schema.Value.AllOf[1].Value.Properties["choice"].Value
	choice.OneOf[1].Value.Required = nil
	if got := findings(); len(got) != 1 || got[0].Pos.Line != 100 || !strings.Contains(got[0].Message, "/choice") ||
		!strings.Contains(got[0].Message, "second branch") {
		t.Fatalf("second branch open, findings:\n%s", rtDescribe(got))
	}
	choice.AnyOf, choice.OneOf = choice.OneOf, nil
	if got := findings(); len(got) != 0 {
		t.Fatalf("anyOf, findings:\n%s", rtDescribe(got))
	}
}

// TestEffectPayloadDiffers: an effect name two operations declare with
// different payloads is IDEM028 at the later declaration, naming the
// first; the same payload, or none in both, is quiet.
func TestEffectPayloadDiffers(t *testing.T) {
	for _, tt := range []struct {
		name          string
		first, second Field[string]
		want          []rtFinding
	}{
		{"same payload", rtSet("#/components/schemas/Item", 21), rtSet("#/components/schemas/Item", 31), nil},
		{"no payload in both", Field[string]{}, Field[string]{}, nil},
		{"different payloads", rtSet("#/components/schemas/Item", 21), rtSet("#/components/schemas/Base", 31), []rtFinding{{"IDEM028", 31}}},
		{"payload and none", rtSet("#/components/schemas/Item", 21), Field[string]{}, []rtFinding{{"IDEM028", 30}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := loadRuleTestDoc(t)
			create := rtGoodContract()
			create.Effects = []Effect{{Pos: rtAt(20), Name: rtSet("notify", 20), OnUnknown: rtBuiltin(OnUnknownRetry), Payload: tt.first}}
			rtOperation(t, doc, "createOrder").Contract = create
			cancel := rtGoodContract()
			cancel.Fingerprint = Fingerprint{}
			cancel.Effects = []Effect{{Pos: rtAt(30), Name: rtSet("notify", 30), OnUnknown: rtBuiltin(OnUnknownRetry), Payload: tt.second}}
			rtOperation(t, doc, "cancelOrder").Contract = cancel
			var got []rtFinding
			var msgs []string
			for _, d := range Check(doc, CheckOptions{}).Diagnostics {
				if d.Rule == ruleEffectPayloadDiffers.ID {
					got = append(got, rtFinding{d.Rule, d.Pos.Line})
					msgs = append(msgs, d.Message)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpEmpty); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			if len(msgs) > 0 && !strings.Contains(msgs[0], "in createOrder (line 20)") {
				t.Errorf("message %q does not name the first declaration", msgs[0])
			}
		})
	}
}
