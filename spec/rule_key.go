package spec

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The rules on the idempotency key: a header key must be documented as a
// header parameter, a body key must be a string field of the body.

var ruleKeyHeaderUndocumented = Rule{
	ID:       "IDEM009",
	Name:     "key-header-undocumented",
	Severity: SeverityWarning,
	Summary:  "a key header that the operation's parameters do not document",
	check: func(r *ruleRun) {
		// A webhook's key header is sent by its sender, as the webhook
		// protocol has it, not by a client generated from the spec.
		if r.c == nil || r.c.Key.In.Value != KeyInHeader || r.op.Webhook {
			return
		}
		name := r.c.Key.Name.Value
		if headerParameter(r.op, name) != nil {
			return
		}
		r.report(r.c.Key.Name.Pos, "x-idempotency.key.name",
			fmt.Sprintf("the key header %s is not among the parameters of %s: clients and SDKs generated from the spec will not send it", name, r.opName()),
			fmt.Sprintf("add a header parameter named %s, usually a $ref to a shared components/parameters entry", name))
	},
}

var ruleBodyKeyNotString = Rule{
	ID:       "IDEM010",
	Name:     "body-key-not-string",
	Severity: SeverityError,
	Summary:  "key.in: body with a key.name pointer to a missing or non-string field, or on a form body",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Key.In.Value != KeyInBody {
			return
		}
		f := r.c.Key.Name
		hint := "point key.name at a required string field of the body, such as /event_id"
		p, err := parsePointer(f.Value)
		if err != nil {
			r.report(f.Pos, "x-idempotency.key.name", fmt.Sprintf("key.name: %v", err), hint)
			return
		}
		body := requestSchema(r.op)
		if body == nil {
			r.report(f.Pos, "x-idempotency.key.name",
				fmt.Sprintf("key.in is body but %s has no request body schema", r.opName()), hint)
			return
		}
		if kind, _ := requestMedia(r.op); kind == MediaForm || kind == MediaMultipart {
			r.report(r.c.Key.In.Pos, "x-idempotency.key.in",
				fmt.Sprintf("key.in is body but the request body of %s is a form: the key is read from a JSON body, so every request would be refused with 400", r.opName()),
				"send the key in a header (key.in: header), or accept the body as application/json")
			return
		}
		res := resolve(body, p)
		switch res.status {
		case lookupOpen:
			return
		case lookupMissing:
			r.report(f.Pos, "x-idempotency.key.name",
				fmt.Sprintf("key.name %s is not in the request schema: %s", f.Value, res.reason), hint)
			return
		}
		types := typesOf(res.schema)
		if len(types) == 1 && (types[0] == "string" || types[0] == "integer" && brokerConsumer(r.c)) {
			return
		}
		what := "declares no type"
		if len(types) > 0 {
			what = "is " + strings.Join(types, " or ")
		}
		r.report(f.Pos, "x-idempotency.key.name",
			fmt.Sprintf("key.name %s %s, but an idempotency key is a string%s", f.Value, what, integerToo(r.c)), hint)
	},
}

// brokerConsumer reports whether c is a broker consumer's contract.
func brokerConsumer(c *Contract) bool { return c.Consumer != nil && c.Consumer.Broker != nil }

// integerToo words that a broker consumer's key may also be an integer
// member, such as a payment's id: its decimal digits are the key.
func integerToo(c *Contract) string {
	if brokerConsumer(c) {
		return " (or, for a broker consumer, an integer)"
	}
	return ""
}

// headerParameter returns the header parameter with the name that the
// operation or its path item declares, compared case-insensitively as HTTP
// does; nil when there is none. The operation's own parameter wins.
func headerParameter(op *Operation, name string) *openapi3.Parameter {
	var params []*openapi3.ParameterRef
	if op.PathItem != nil {
		params = append(params, op.PathItem.Parameters...)
	}
	if op.Op != nil {
		params = append(params, op.Op.Parameters...)
	}
	var found *openapi3.Parameter
	for _, p := range params {
		if p != nil && p.Value != nil && p.Value.In == "header" && strings.EqualFold(p.Value.Name, name) {
			found = p.Value
		}
	}
	return found
}

var ruleOptionalKey = Rule{
	ID:       "IDEM018",
	Name:     "optional-key",
	Severity: SeverityWarning,
	Summary:  "key.required: false, which lets requests without a key run unprotected",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Key.Required.Value {
			return
		}
		r.report(r.c.Key.Required.Pos, "x-idempotency.key.required",
			fmt.Sprintf("the key of %s is optional: a request without one runs unprotected, and its retry applies the operation a second time", r.opName()),
			"set key.required: true, so that a request without a key gets 400")
	},
}

var ruleKeyParameterNotRequired = Rule{
	ID:       "IDEM019",
	Name:     "key-parameter-not-required",
	Severity: SeverityWarning,
	Summary:  "a required key whose header parameter the spec documents as optional",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Key.In.Value != KeyInHeader || !r.c.Key.Required.Value {
			return
		}
		p := headerParameter(r.op, r.c.Key.Name.Value)
		if p == nil || p.Required {
			return
		}
		r.report(r.c.Key.Name.Pos, "x-idempotency.key.name",
			fmt.Sprintf("the contract requires the %s header, but the parameters of %s document it as optional: clients that follow the spec leave it out and get 400", p.Name, r.opName()),
			"set required: true on the header parameter, or key.required: false if requests without a key must be served")
	},
}
