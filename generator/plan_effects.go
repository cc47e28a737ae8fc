package generator

import (
	"maps"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// planProviders plans one typed provider per effect name the program's
// operations enqueue, in name order, with the struct that holds them and
// the function that registers them with the worker. An effect name has one
// payload throughout the document (spec rule IDEM028); its provider has
// Verify when any operation declares it with on-unknown: verify.
func planProviders(prog *ir.Program, types *TypePlan) {
	byName := map[string]*ir.Provider{}
	pos := map[string]spec.Position{}
	for _, ot := range types.Operations {
		if ot.Op.Contract == nil {
			continue
		}
		for _, e := range ot.Op.Contract.Effects {
			name := e.Name.Value
			pr := byName[name]
			if pr == nil {
				pr = &ir.Provider{Effect: name, Payload: ot.Payloads[name]}
				byName[name], pos[name] = pr, e.Pos
			}
			pr.Verify = pr.Verify || e.OnUnknown.Value == spec.OnUnknownVerify
			pr.Operations = append(pr.Operations, where(ot.Op))
		}
	}
	if len(byName) == 0 {
		return
	}
	names := types.Names
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		pr, at := byName[name], pos[name]
		base := GoName(name)
		pr.Interface = names.Unique(base+"Provider", "provider of effect "+name, at)
		pr.CallType = names.Unique(base+"Call", "provider call of effect "+name, at)
		pr.Adapter = names.Unique(strings.ToLower(base[:1])+base[1:]+"Adapter", "provider adapter of effect "+name, at)
		pr.Field = base
		prog.Providers = append(prog.Providers, pr)
	}
	first := pos[prog.Providers[0].Effect]
	prog.ProvidersType = names.Unique("EffectProviders", "the effect providers", first)
	prog.ProvidersFunc = names.Unique("Providers", "the effect providers' registrations", first)
}
