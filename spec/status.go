package spec

import "go.yaml.in/yaml/v4"

// StatusRoute is an operation's x-idempotency-status block: the operation
// is a status route, which tells a client what became of its attempt of
// another operation, found by the idempotency key it sent:
//
//	/orders/attempts/{key}:
//	  get:
//	    operationId: getOrderAttempt
//	    x-idempotency-status:
//	      operation: createOrder   # the protected operation whose attempts it tells
//	      parameter: key           # the path parameter carrying the key (default key)
//
// It runs nothing; the key is looked up in the same trusted scope as the
// operation's own requests. IDEM040 checks that it can be generated.
type StatusRoute struct {
	// Pos is where the x-idempotency-status block starts.
	Pos Position
	// Operation is the operationId of the operation whose attempts the
	// route tells.
	Operation Field[string]
	// Parameter names the path parameter that carries the key; a built-in
	// "key", not Set, when the block does not say.
	Parameter Field[string]
}

// statusFields are the fields of an x-idempotency-status block.
var statusFields = []string{"operation", "parameter"}

// DefaultStatusParameter is the path parameter a status route reads the
// key from when its block does not name one.
const DefaultStatusParameter = "key"

// statusRoute decodes the x-idempotency-status block of the operation node
// opNode; nil when there is none or it is unusable (the error is
// recorded).
func (l *loader) statusRoute(src *source, opNode *yaml.Node) *StatusRoute {
	k, v := mappingEntry(deref(opNode), "x-idempotency-status")
	if k == nil {
		return nil
	}
	d := &decoder{file: src.file, origin: l.overlayNodes}
	defer func() { l.errs = append(l.errs, d.errs...) }()
	v = deref(v)
	const path = "x-idempotency-status"
	if v == nil || v.Kind != yaml.MappingNode {
		d.errorf(v, path, "want an object with operation, got %s", kindName(v))
		return nil
	}
	s := &StatusRoute{Pos: d.pos(k)}
	s.Parameter = Field[string]{Value: DefaultStatusParameter, Pos: s.Pos}
	d.fields(v, path, statusFields, func(_, fv *yaml.Node, name, fpath string) {
		switch name {
		case "operation":
			s.Operation = d.nonEmptyString(fv, fpath)
		case "parameter":
			if f := d.nonEmptyString(fv, fpath); f.Set {
				s.Parameter = f
			}
		}
	})
	if !s.Operation.Set {
		if _, ov := mappingEntry(v, "operation"); ov == nil {
			d.errorf(v, path, "a status route needs operation, the operationId whose attempts it tells")
		}
		return nil
	}
	return s
}
