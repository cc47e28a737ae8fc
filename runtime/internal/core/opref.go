package core

// OpRef carries an Operation for a type of another runtime package to
// embed unexported (idem.Delivery does): OperationOf reaches the operation
// through it and nothing outside the runtime does.
type OpRef struct{ op *Operation }

// RefTo returns an OpRef carrying op.
func RefTo(op *Operation) OpRef { return OpRef{op: op} }

func (r OpRef) coreOperation() *Operation { return r.op }

// OperationHolder is implemented by the types that embed an OpRef.
type OperationHolder interface {
	coreOperation() *Operation
}

// OperationOf returns the Operation h carries.
func OperationOf(h OperationHolder) *Operation { return h.coreOperation() }
