package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// manySchemas returns a JSON document with n component schemas of several
// kinds (objects with $refs, a $ref with sibling keywords, extensions,
// enums, composition), enough for decodeDocument to cut them in parts;
// bad, when not "", replaces the schema of that name.
func manySchemas(n int, bad string) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "x-top": 1,
"paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}},
"responses": {"200": {"description": "ok"}}}}},
"components": {"parameters": {"P": {"name": "p", "in": "query", "schema": {"type": "string"}}}, "x-comp": true, "schemas": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		name := fmt.Sprintf("S%d", i)
		switch {
		case name == bad:
			fmt.Fprintf(&b, `%q: {"type": "object", "required": "not a list"}`, name)
		case i%4 == 0:
			fmt.Fprintf(&b, `%q: {"type": "object", "x-n": %d, "properties": {"a": {"$ref": "#/components/schemas/S%d"}, "b": {"type": "string", "enum": ["x", "y"]}}, "required": ["b"]}`, name, i, (i+1)%n)
		case i%4 == 1:
			fmt.Fprintf(&b, `%q: {"$ref": "#/components/schemas/S%d", "description": "sibling"}`, name, (i+2)%n)
		case i%4 == 2:
			fmt.Fprintf(&b, `%q: {"oneOf": [{"type": "integer", "minimum": 1}, {"$ref": "#/components/schemas/S0"}], "discriminator": {"propertyName": "k"}}`, name)
		default:
			fmt.Fprintf(&b, `%q: {"type": "array", "items": {"type": "number"}, "maxItems": %d}`, name, i)
		}
	}
	b.WriteString("}}}")
	return []byte(b.String())
}

// decodeBoth decodes data in one piece, stamping its origins, and through
// decodeDocument.
func decodeBoth(t *testing.T, data []byte) (whole, parts *openapi3.T, wholeErr, partsErr error) {
	t.Helper()
	src, err := parseSource("doc.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if err := prepareForKin(src.root); err != nil {
		t.Fatal(err)
	}
	whole, parts = &openapi3.T{}, &openapi3.T{}
	wholeErr = src.root.Decode(whole)
	if wholeErr == nil {
		stampOrigins(reflect.ValueOf(whole), src.root, "doc.json")
	}
	return whole, parts, wholeErr, decodeDocument(src.root, parts, "doc.json")
}

// TestDecodeDocumentInPartsIsOneDecode decodes documents whose component
// schemas decodeDocument cuts in parts, and one with too few to cut: the
// model, origins included, must be the one a single decode gives.
func TestDecodeDocumentInPartsIsOneDecode(t *testing.T) {
	for _, n := range []int{3, 2 * schemaParts * schemasPerPart, 301} {
		whole, parts, wholeErr, partsErr := decodeBoth(t, manySchemas(n, ""))
		if wholeErr != nil || partsErr != nil {
			t.Fatalf("%d schemas: %v, %v", n, wholeErr, partsErr)
		}
		if len(parts.Components.Schemas) != n {
			t.Fatalf("%d schemas: decoded %d", n, len(parts.Components.Schemas))
		}
		if !reflect.DeepEqual(whole, parts) {
			t.Errorf("%d schemas: the decode in parts differs from one decode", n)
		}
	}
}

// TestDecodeDocumentInPartsFailsAsOneDecode puts an invalid schema in the
// last part: the error must be the one a single decode reports.
func TestDecodeDocumentInPartsFailsAsOneDecode(t *testing.T) {
	_, _, wholeErr, partsErr := decodeBoth(t, manySchemas(301, "S300"))
	if wholeErr == nil || partsErr == nil || wholeErr.Error() != partsErr.Error() {
		t.Fatalf("errors differ:\none decode: %v\nin parts:   %v", wholeErr, partsErr)
	}
}

// TestDecodeDocumentCorpus decodes the corpus specs with component schemas
// (read in place) both ways: the models, origins included, must be equal.
func TestDecodeDocumentCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, f := range corpusFiles {
		data, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		whole, parts, wholeErr, partsErr := decodeBoth(t, data)
		if (wholeErr == nil) != (partsErr == nil) || wholeErr != nil && wholeErr.Error() != partsErr.Error() {
			t.Errorf("%s: errors differ: %v, %v", f.name, wholeErr, partsErr)
			continue
		}
		if !reflect.DeepEqual(whole, parts) {
			t.Errorf("%s: the decode in parts differs from one decode", f.name)
		}
	}
}
