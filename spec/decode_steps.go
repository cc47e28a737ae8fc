package spec

import (
	"go.yaml.in/yaml/v4"
)

// stepFields are the fields a step of a phased operation accepts.
var stepFields = []string{"name", "external", "on-unknown", "timeout", "output"}

// steps decodes the steps list of a phased operation. What only makes
// sense together (on-unknown and timeout on external steps, the last
// step local, the lease against the timeouts) is for the rules to judge:
// the values may come from different blocks.
func (d *decoder) steps(n *yaml.Node, path string) []Step {
	var out []Step
	d.namedObjects(n, path, "a list of steps such as [{name: charge_card, external: true, on-unknown: verify, timeout: 10s}]", "an object with a name", "a step needs a name",
		func(item *yaml.Node, ipath string) {
			s := Step{Pos: d.pos(item)}
			d.fields(item, ipath, stepFields, func(_, v *yaml.Node, name, fpath string) {
				switch name {
				case "name":
					s.Name = d.nonEmptyString(v, fpath)
				case "external":
					s.External = d.boolean(v, fpath)
				case "on-unknown":
					s.OnUnknown = enum(d, v, fpath, OnUnknownRetry, OnUnknownVerify, OnUnknownHalt)
				case "timeout":
					s.Timeout = d.duration(v, fpath)
				case "output":
					s.Output = d.schemaRef(v, fpath)
				}
			})
			out = append(out, s)
		})
	return out
}

// schemaRef decodes a reference to a schema, {$ref: '#/components/schemas/Name'},
// into the reference. Whether it names a component schema is IDEM039's to
// judge, as IDEM027 judges an effect's payload.
func (d *decoder) schemaRef(n *yaml.Node, path string) Field[string] {
	const want = "want a schema reference such as {$ref: '#/components/schemas/Charge'}"
	if n == nil || n.Kind != yaml.MappingNode {
		d.errorf(n, path, "%s, got %s", want, kindName(n))
		return Field[string]{}
	}
	if k, _ := mappingEntry(n, "$ref"); k == nil {
		d.errorf(n, path, "%s: declare the state's schema under components/schemas and refer to it, since it becomes a named Go type", want)
		return Field[string]{}
	}
	var ref Field[string]
	d.fields(n, path, []string{"$ref"}, func(_, v *yaml.Node, _, fpath string) {
		ref = d.nonEmptyString(v, fpath)
	})
	return ref
}
