package generator

import (
	"slices"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// planContract turns an operation's contract into the value the generated
// code hands the runtime: the one place where spec values become values
// the runtime reads. params are the operation's path parameters; body is
// its request body, nil without one.
func planContract(op *spec.Operation, params []string, body *BodyType) ir.Contract {
	c := op.Contract
	rc := ir.Contract{
		Operation:   op.ID,
		Method:      op.Method,
		Route:       op.Path,
		PathParams:  params,
		Key:         ir.Key{Optional: !c.Key.Required.Value, MaxLength: c.Key.MaxLength.Value},
		Retention:   c.Retention.Value,
		Tombstone:   c.Tombstone.Value,
		Concurrency: ir.ConcurrencyWait,
		WaitTimeout: c.WaitTimeout.Value,
		Fingerprint: ir.FingerprintSpec{
			Include:   fieldValues(c.Fingerprint.Include),
			Exclude:   fieldValues(c.Fingerprint.Exclude),
			Unordered: fieldValues(c.Fingerprint.Unordered),
		},
	}
	if body != nil {
		rc.MediaTypes = body.Accept
	}
	if c.Key.In.Value == spec.KeyInBody {
		rc.Key.BodyPointer = c.Key.Name.Value
	} else {
		rc.Key.Header = c.Key.Name.Value
	}
	if c.Concurrency.Value == spec.ConcurrencyReject {
		rc.Concurrency = ir.ConcurrencyReject
	}
	rc.ReplayCurrent = c.Replay.Value == spec.ReplayCurrent
	// An empty StoreFailures is the runtime's default (every 4xx); a
	// contract that stores no failure says so.
	rc.StoreNoFailures = len(c.StoreFailures.Value) == 0
	for _, s := range c.StoreFailures.Value {
		if s == "4xx" {
			rc.StoreFailures = append(rc.StoreFailures, ir.StatusClass{Class: 4})
		} else {
			n, _ := strconv.Atoi(s)
			rc.StoreFailures = append(rc.StoreFailures, ir.StatusClass{Status: n})
		}
	}
	return rc
}

// fieldValues returns the values of fields; nil when there are none.
func fieldValues(fields []spec.Field[string]) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Value)
	}
	return out
}

// pathParams returns the sorted names of an operation's path parameters,
// from the operation and its path item.
func pathParams(op *spec.Operation) []string {
	var out []string
	add := func(params openapi3.Parameters) {
		for _, ref := range params {
			if ref != nil && ref.Value != nil && ref.Value.In == openapi3.ParameterInPath && !slices.Contains(out, ref.Value.Name) {
				out = append(out, ref.Value.Name)
			}
		}
	}
	if op.Op != nil {
		add(op.Op.Parameters)
	}
	if op.PathItem != nil {
		add(op.PathItem.Parameters)
	}
	slices.Sort(out)
	return out
}
