package spec

import (
	"errors"
	"reflect"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// schemaParts is how many parts decodeDocument cuts the component schemas
// into, and schemasPerPart the fewest schemas a part holds: a document
// with fewer schemas than that is decoded in one piece.
const (
	schemaParts    = 4
	schemasPerPart = 32
)

// decodeDocument decodes the document root into t as root.Decode(t) does
// and stamps the origins of file on it (stampOrigins), with the schemas of
// its components in parts, each decoded and stamped on a goroutine of its
// own, beside the rest of the document: decoding is the longest step of a
// load, which nothing else runs beside, and the schemas are most of a large
// document (a schema decodes and is stamped with no state shared with
// another, and stamping runs before references are resolved). The parts
// are merged in document order (the loader refuses a repeated key before
// this, so no name is in two parts). When any part fails, the document is
// decoded again in one piece, so that the error is the one a single decode
// reports.
func decodeDocument(root *yaml.Node, t *openapi3.T, file string) error {
	rest, schemas := withoutSchemas(root)
	if schemas == nil || len(schemas.Content) < 2*schemaParts*schemasPerPart {
		return decodeWhole(root, t, file)
	}
	pairs := len(schemas.Content) / 2
	decoded := make([]openapi3.Schemas, schemaParts)
	errs := make([]error, schemaParts)
	var wg sync.WaitGroup
	for i := range schemaParts {
		part := *schemas
		part.Content = schemas.Content[2*(pairs*i/schemaParts) : 2*(pairs*(i+1)/schemaParts)]
		wg.Go(func() { errs[i] = decodeWhole(&part, &decoded[i], file) })
	}
	err := decodeWhole(rest, t, file)
	wg.Wait()
	if errors.Join(append(errs, err)...) != nil {
		*t = openapi3.T{}
		return decodeWhole(root, t, file)
	}
	if t.Components == nil {
		t.Components = &openapi3.Components{}
	}
	t.Components.Schemas = make(openapi3.Schemas, pairs)
	for _, m := range decoded {
		for name, s := range m {
			t.Components.Schemas[name] = s
		}
	}
	return nil
}

// decodeWhole decodes node into out and stamps the origins of file on it.
func decodeWhole(node *yaml.Node, out any, file string) error {
	if err := node.Decode(out); err != nil {
		return err
	}
	stampOrigins(reflect.ValueOf(out), node, file)
	return nil
}

// withoutSchemas returns a copy of the mapping root without
// components/schemas, sharing every other node, and that schemas mapping;
// nil when root has none.
func withoutSchemas(root *yaml.Node) (*yaml.Node, *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		return root, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "components" || root.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		components := root.Content[i+1]
		for j := 0; j+1 < len(components.Content); j += 2 {
			if components.Content[j].Value != "schemas" || components.Content[j+1].Kind != yaml.MappingNode {
				continue
			}
			rest := *components
			rest.Content = append(append([]*yaml.Node{}, components.Content[:j]...), components.Content[j+2:]...)
			top := *root
			top.Content = append([]*yaml.Node{}, root.Content...)
			top.Content[i+1] = &rest
			return &top, components.Content[j+1]
		}
		return root, nil
	}
	return root, nil
}
