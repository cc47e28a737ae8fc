package core

import "github.com/idemgen/idemgen/runtime/internal/faults"

// InstallFaults sets the fault-injection hooks of the executor h holds,
// for the runtime's own tests. Call it before the executor serves its
// first request. It is a function of this internal package, not a method
// or a configuration field, so that no service can reach it.
func InstallFaults(h Holder, hooks faults.Hooks) {
	h.coreExecutor().hooks = hooks
}
