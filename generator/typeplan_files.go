package generator

import "github.com/idemgen/idemgen/spec"

// files makes each top-level property of type string and format binary of
// d, the struct of the multipart request body of where, a file field
// (TypeFile), keeping its pointer or Nullable, with maxLength as its size
// limit in bytes. A binary string deeper down (an array of files, a file
// inside an object) is refused: a file part's name is a plain name.
func (p *typePlanner) files(d *TypeDecl, op *spec.Operation, where string) {
	for _, f := range d.Fields {
		if t, ok := fileType(f.Type); ok {
			f.Type = t
			continue
		}
		if binaryBelow(f.Type, map[*TypeDecl]bool{}) {
			p.errorf(p.plan.FieldPos(f), "property "+f.JSONName+" of the multipart request body of "+where+" holds files below its top level (an array of files, or a file in an object): only a top-level property of type string and format binary is read from a file part, so the operation would get no handler")
			p.rules[p.errs[len(p.errs)-1]] = RuleUnsupportedBody
		}
	}
	p.multipart = append(p.multipart, multipartBody{d, op, where})
}

// multipartBody is the struct of a multipart request body and the
// operation it is the body of, for sharedFiles.
type multipartBody struct {
	decl  *TypeDecl
	op    *spec.Operation
	where string
}

// fileType returns the file field type of a field of type t, and whether
// t is a binary string (or already a file), under a pointer or Nullable.
func fileType(t *GoType) (*GoType, bool) {
	switch t.Kind {
	case TypeFile:
		return t, true
	case TypeString:
		if t.Format != "binary" {
			return nil, false
		}
		f := &GoType{Kind: TypeFile, Format: t.Format}
		if t.Checks != nil && t.Checks.MaxLength != nil {
			f.Checks = &Checks{MaxLength: t.Checks.MaxLength}
		}
		return f, true
	case TypePointer, TypeNullable:
		if e, ok := fileType(t.Elem); ok {
			return &GoType{Kind: t.Kind, Elem: e}, true
		}
	}
	return nil, false
}

// binaryBelow reports whether a value of type t holds a string of format
// binary or a file anywhere.
func binaryBelow(t *GoType, seen map[*TypeDecl]bool) bool {
	switch {
	case t.Kind == TypeFile, t.Kind == TypeString && t.Format == "binary":
		return true
	case t.Elem != nil:
		return binaryBelow(t.Elem, seen)
	case t.Decl != nil && !seen[t.Decl]:
		seen[t.Decl] = true
		for _, f := range t.Decl.Fields {
			if binaryBelow(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// sharedFiles refuses a multipart body whose schema a JSON request body
// also reaches: its file fields cannot be read from JSON.
func (p *typePlanner) sharedFiles() {
	for _, mb := range p.multipart {
		if mb.decl.JSON {
			p.errorf(p.plan.DeclPos(mb.decl), "the schema of the multipart request body of "+mb.where+" is also a JSON request body's: its file fields are read from file parts and cannot be read from JSON, so the operation would get no handler")
			err := p.errs[len(p.errs)-1]
			p.rules[err], p.errOps[err] = RuleUnsupportedBody, mb.op
		}
	}
}
