package generator

import (
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// shipmentType is a request type with every kind of path a pointer can
// take: a struct, a slice of structs, a map and a raw value.
func shipmentType() *GoType {
	line := &TypeDecl{Name: "Line", Kind: DeclStruct, Fields: []*StructField{
		{Name: "Sku", JSONName: "sku", Type: &GoType{Kind: TypeString}, Required: true},
	}}
	root := &TypeDecl{Name: "Shipment", Kind: DeclStruct, Fields: []*StructField{
		{Name: "Lines", JSONName: "lines", Type: &GoType{Kind: TypeSlice, Elem: &GoType{Kind: TypeDeclared, Decl: line}}},
		{Name: "Metadata", JSONName: "metadata", Type: &GoType{Kind: TypeMap, Elem: &GoType{Kind: TypeString}}},
		{Name: "Extra", JSONName: "extra", Type: &GoType{Kind: TypeRaw}},
		{Name: "Destination", JSONName: "destination", Type: &GoType{Kind: TypePointer, Elem: &GoType{Kind: TypeDeclared, Decl: line}}},
	}}
	return &GoType{Kind: TypeDeclared, Decl: root}
}

func TestPlanFingerprintPointers(t *testing.T) {
	field := func(v string) spec.Field[string] {
		return spec.Field[string]{Value: v, Pos: spec.Position{File: "s.yaml", Line: 7, Col: 9}}
	}
	tests := []struct {
		name                       string
		include, exclude, unorderd []string
		wantErr                    string
	}{
		{name: "walkable", include: []string{"/lines/0/sku", "/metadata/a", "/extra"}, exclude: []string{"/lines/*/sku", "/metadata/trace"}, unorderd: []string{"/lines"}},
		{name: "missing member resolves nowhere", include: []string{"/nope"}},
		{name: "array index in exclude", exclude: []string{"/lines/0"}, wantErr: "fingerprint.exclude /lines/0 cannot be generated: /lines is an array, and generated code addresses its elements only all at once, with *"},
		{name: "map member in unordered", unorderd: []string{"/metadata/a"}, wantErr: "/metadata is a map, and generated code addresses a single member only as the last segment of an exclude pointer"},
		{name: "into a raw value", exclude: []string{"/extra/a"}, wantErr: "/extra is a free-form value, which generated code keeps whole and cannot walk into"},
		{name: "include into a raw value", include: []string{"/extra/a"}, wantErr: "x-idempotency.fingerprint.include[0]: fingerprint.include /extra/a cannot be generated: /extra is a free-form value, which generated code keeps whole and cannot select from"},
		{name: "member wildcard before a segment", exclude: []string{"/destination/*/x"}, wantErr: "* over the members of the object /destination is supported only as the last segment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &spec.Contract{}
			for _, p := range tt.include {
				c.Fingerprint.Include = append(c.Fingerprint.Include, field(p))
			}
			for _, p := range tt.exclude {
				c.Fingerprint.Exclude = append(c.Fingerprint.Exclude, field(p))
			}
			for _, p := range tt.unorderd {
				c.Fingerprint.Unordered = append(c.Fingerprint.Unordered, field(p))
			}
			_, errs := planFingerprint(c, shipmentType())
			switch {
			case tt.wantErr == "" && len(errs) > 0:
				t.Fatalf("errors: %v", errs)
			case tt.wantErr != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.wantErr)):
				t.Fatalf("errors %v, want one containing %q", errs, tt.wantErr)
			case tt.wantErr != "" && !strings.HasPrefix(errs[0].Error(), "s.yaml:7:9: "):
				t.Fatalf("error %q does not carry the pointer's position", errs[0])
			}
		})
	}
}

func TestIncludesSortLikeTheRuntime(t *testing.T) {
	in := []ir.Pointer{{Pointer: "/b"}, {Pointer: "/\U0001F600"}, {Pointer: "/\uFB33"}, {Pointer: "/a"}}
	sortIncludes(in)
	var got []string
	for _, p := range in {
		got = append(got, p.Pointer)
	}
	want := []string{"/a", "/b", "/\U0001F600", "/\uFB33"} // UTF-16: a surrogate pair sorts before U+FB33
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("sorted %q, want %q", got, want)
	}
}
