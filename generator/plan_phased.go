package generator

import (
	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// planPhased plans the steps of a phased operation: one business method of
// Handlers per step, named after the operation and the step, the verify
// method of an external step under the verify policy, and each step's
// output type. The spec's rules (IDEM030-IDEM039) have made sure the steps
// are named, the external ones complete and the last one local.
func planPhased(p *ir.Operation, ot *OperationTypes, names *Namespace) *ir.Phased {
	op := ot.Op
	ph := &ir.Phased{Func: names.Unique("phased"+ot.Name, "phased operation of "+describe(op), op.Pos)}
	for _, s := range op.Contract.Steps {
		step := ir.Step{
			Name:     s.Name.Value,
			Method:   names.Unique(ot.Name+GoName(s.Name.Value), "step "+s.Name.Value+" of "+describe(op), s.Pos),
			External: s.External.Value,
			Output:   ot.Outputs[s.Name.Value],
		}
		if step.External {
			step.OnUnknown, step.Timeout = string(s.OnUnknown.Value), s.Timeout.Value
			if s.OnUnknown.Value == spec.OnUnknownVerify {
				step.VerifyMethod = names.Unique(step.Method+"Verify", "verify of step "+s.Name.Value+" of "+describe(op), s.Pos)
			}
		}
		ph.Steps = append(ph.Steps, step)
	}
	p.Contract.Lease = op.Contract.Lease.Value
	return ph
}
