package spec

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// openAPI builds kin-openapi's model of the document rooted in root, the
// file at path. A document that needs no other file is decoded from the
// node tree this loader already parsed, so the text is parsed once; that
// parse is most of a load. Anything else (references into other files or
// URLs, dangling references, YAML aliases) goes through kin-openapi's own
// loader, which reads the files again through readURI.
func (l *loader) openAPI(ctx context.Context, root *source, path string) (*openapi3.T, error) {
	if l.selfContained(root) {
		t, err := decodeOpenAPI(ctx, root, path)
		if !errors.Is(err, errNotSelfContained) {
			return t, err
		}
	}
	kl := openapi3.NewLoader()
	kl.IsExternalRefsAllowed = true
	kl.IncludeOrigin = true
	kl.Context = ctx
	kl.ReadFromURIFunc = l.readURI
	t, err := kl.LoadFromFile(path)
	if len(l.errs) > 0 {
		return nil, l.errs.errOrNil()
	}
	if err != nil {
		return nil, kinError(root, err)
	}
	return t, nil
}

// selfContained reports whether root may be a document decodeOpenAPI can
// take: no other file was read for it, none of its references dangles, and
// it has no aliases. A reference to a URL is found out only when kin-openapi
// resolves it (many sit where kin-openapi does not look).
func (l *loader) selfContained(root *source) bool {
	return len(l.dangling) == 0 && len(l.sources) == 1 && !hasAlias(root.root)
}

// hasAlias reports whether an alias node is under n.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// decodeOpenAPI decodes root's tree into kin-openapi's model, stamps the
// origins kin-openapi's own loader would (stampOrigins) and resolves the
// references, which all point into the document.
func decodeOpenAPI(ctx context.Context, root *source, path string) (*openapi3.T, error) {
	if err := prepareForKin(root.root); err != nil {
		return nil, kinError(root, err)
	}
	t := &openapi3.T{}
	file := (&url.URL{Path: filepath.ToSlash(path)}).String()
	if err := decodeDocument(root.root, t, file); err != nil {
		return nil, decodeError(root, err)
	}
	if len(root.root.Content) > 0 {
		// The root has no key above it and takes its first key's, as in
		// kin-openapi.
		stampKey(reflect.ValueOf(t), root.root.Content[0], file)
	}
	kl := openapi3.NewLoader()
	kl.Context = ctx
	// No location, and external references refused: this path takes only
	// local ones. kin-openapi also treats a document with a location but
	// not loaded through it as an external one, which resolves its
	// discriminator mappings as it would not for the root.
	if err := kl.ResolveRefsIn(t, nil); err != nil {
		if _, ok := errors.AsType[*openapi3.DisallowedExternalRefError](err); ok {
			return nil, errNotSelfContained
		}
		return nil, kinError(root, err)
	}
	return t, nil
}

// errNotSelfContained is decodeOpenAPI's answer to a document that refers
// to another file or a URL.
var errNotSelfContained = errors.New("spec: the document refers outside itself")

// decodeError positions an error of kin-openapi's decoder at the node it
// is about and names that node's JSON pointer, as kin-openapi's loader
// does.
func decodeError(root *source, err error) error {
	var list *yaml.LoadErrors
	if !errors.As(err, &list) || len(list.Errors) == 0 {
		return kinError(root, err)
	}
	e := list.Errors[0]
	msg := "invalid OpenAPI document: " + oneLine(e.Message)
	if p, ok := pointerAt(root.root, e.Mark.Line, e.Mark.Column, nil); ok && len(p) > 0 {
		msg += " in " + p.String()
	}
	return &Error{Pos: Position{File: root.file, Line: e.Mark.Line, Col: e.Mark.Column}, Msg: msg}
}

// pointerAt returns the pointer, below the node n at at, of the shallowest
// node starting at line and column.
func pointerAt(n *yaml.Node, line, column int, at pointer) (pointer, bool) {
	if n.Line == line && n.Column == column {
		return at, true
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if p, ok := pointerAt(n.Content[i+1], line, column, append(slices.Clip(at), n.Content[i].Value)); ok {
				return p, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p, ok := pointerAt(c, line, column, append(slices.Clip(at), strconv.Itoa(i))); ok {
				return p, true
			}
		}
	}
	return nil, false
}

// prepareForKin readies a node tree for kin-openapi's decoder as its own
// parse does: a mapping key that is not a string names its text, a local
// tag or a timestamp is read as a string, and infinity and NaN, which JSON
// cannot hold, are refused. The errors name the line, as kin-openapi's do.
func prepareForKin(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") || n.Tag == "!!timestamp" {
			n.Tag = "!!str"
		}
		if n.Tag == "!!float" {
			switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
			case ".inf", ".nan":
				return fmt.Errorf("line %d: %s has no JSON representation", n.Line, n.Value)
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!str" || k.Value == "<<" && k.Tag == "!!merge" {
				continue
			}
			if k.Tag == "!!null" {
				return fmt.Errorf("line %d: mapping key is null, so it names nothing", k.Line)
			}
			k.Tag = "!!str"
		}
	}
	for _, c := range n.Content {
		if err := prepareForKin(c); err != nil {
			return err
		}
	}
	return nil
}

// originType is the type of kin-openapi's origin field.
var originType = reflect.TypeFor[*openapi3.Origin]()

// stampOrigins sets Origin.Key on everything decoded from node into v, as
// kin-openapi does when it parses with IncludeOrigin, and in its order: an
// object's insides first, then the object takes the position and name of
// the mapping key it is found under, or an object in a sequence its own
// first key's. A $ref wrapper and the value it holds share their node and
// their key, so a key stamped on a wrapper stamps the value too (and an
// object's key therefore wins over the key its wrapped field was found
// under, as in kin-openapi). It runs before references are resolved, so a
// referenced object is stamped only where it is written.
func stampOrigins(v reflect.Value, node *yaml.Node, file string) {
	v = indirect(v)
	if !v.IsValid() || node == nil || node.Kind != yaml.MappingNode {
		return
	}
	if inner := wrapped(v); inner.IsValid() {
		stampOrigins(inner, node, file)
		return
	}
	entries := mapEntries(v)
	children := make([]reflect.Value, len(node.Content)/2)
	for i := range children {
		keyNode, valNode := node.Content[2*i], node.Content[2*i+1]
		child := childFor(v, entries, keyNode.Value)
		children[i] = child
		switch c := indirect(child); {
		case !c.IsValid():
		case c.Kind() == reflect.Slice && valNode.Kind == yaml.SequenceNode:
			for j := 0; j < len(valNode.Content) && j < c.Len(); j++ {
				stampOrigins(c.Index(j), valNode.Content[j], file)
			}
		default:
			stampOrigins(c, valNode, file)
		}
	}
	for i, child := range children {
		if !child.IsValid() {
			continue
		}
		stampKey(child, node.Content[2*i], file)
		valNode := node.Content[2*i+1]
		if c := indirect(child); c.IsValid() && c.Kind() == reflect.Slice && valNode.Kind == yaml.SequenceNode {
			for j := 0; j < len(valNode.Content) && j < c.Len(); j++ {
				if item := valNode.Content[j]; item.Kind == yaml.MappingNode && len(item.Content) > 0 {
					stampKey(c.Index(j), item.Content[0], file)
				}
			}
		}
	}
}

// wrapped is the object a wrapper holds: the Value of a $ref wrapper or
// the Schema of a BoolSchema; else the invalid Value.
func wrapped(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}
	}
	if i := kinTypeOf(v.Type()).wrapped; i != nil {
		return v.FieldByIndex(i)
	}
	return reflect.Value{}
}

// indirect follows pointers and interfaces to the value they hold, or
// returns the invalid Value for a nil one.
func indirect(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// mapEntries is the map a value's entries live in: the value itself when
// it is a map, the result of its Map method for kin-openapi's map-like
// types (Paths, Responses, Callback), else the invalid Value.
func mapEntries(v reflect.Value) reflect.Value {
	switch {
	case v.Kind() == reflect.Map:
		return v
	case v.Kind() != reflect.Struct || !v.CanAddr():
		return reflect.Value{}
	}
	if i := kinTypeOf(v.Type()).mapMethod; i >= 0 {
		return v.Addr().Method(i).Call(nil)[0]
	}
	return reflect.Value{}
}

// childFor finds what the mapping key decoded into: an entry of entries,
// or the struct field of v whose yaml name it is.
func childFor(v, entries reflect.Value, key string) reflect.Value {
	if entries.IsValid() {
		if entries.IsNil() {
			return reflect.Value{}
		}
		return entries.MapIndex(reflect.ValueOf(key))
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}
	}
	if i, ok := kinTypeOf(v.Type()).fields[key]; ok {
		return v.Field(i)
	}
	return reflect.Value{}
}

// kinType is what stamping needs to know of a struct type of
// kin-openapi's model, worked out once per type: a large document holds
// the same few types hundreds of thousands of times.
type kinType struct {
	// fields maps the yaml names of the exported fields to their indexes.
	fields map[string]int
	// origin is the index path of the *Origin field, promoted ones
	// included; nil when there is none.
	origin []int
	// wrapped is the index path of the field a wrapper holds its object
	// in: Value of a $ref wrapper (a struct with a string Ref and a pointer
	// Value), Schema of a BoolSchema; nil when t is no wrapper.
	wrapped []int
	// inner are the index paths of the pointer fields named Value or
	// Schema, promoted ones included, which a stamped key reaches too.
	inner [][]int
	// mapMethod is the index of the Map method of the pointer type, or -1.
	mapMethod int
}

// kinTypes caches kinTypeOf.
var kinTypes sync.Map

// kinTypeOf returns the kinType of struct type t.
func kinTypeOf(t reflect.Type) *kinType {
	if k, ok := kinTypes.Load(t); ok {
		return k.(*kinType)
	}
	k := &kinType{fields: map[string]int{}, mapMethod: -1}
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); f.IsExported() && name != "" && name != "-" {
			k.fields[name] = i
		}
	}
	if f, ok := t.FieldByName("Origin"); ok && f.Type == originType && f.IsExported() {
		k.origin = f.Index
	}
	for _, name := range [...]string{"Value", "Schema"} {
		if f, ok := t.FieldByName(name); ok && f.Type.Kind() == reflect.Pointer && f.IsExported() {
			k.inner = append(k.inner, f.Index)
		}
	}
	if f, ok := t.FieldByName("Schema"); ok && t == reflect.TypeFor[openapi3.BoolSchema]() {
		k.wrapped = f.Index
	}
	if ref, ok := t.FieldByName("Ref"); ok && ref.Type.Kind() == reflect.String {
		if value, ok := t.FieldByName("Value"); ok && value.Type.Kind() == reflect.Pointer {
			k.wrapped = value.Index
		}
	}
	if m, ok := reflect.PointerTo(t).MethodByName("Map"); ok && m.Type.NumIn() == 1 && m.Type.NumOut() == 1 {
		k.mapMethod = m.Index
	}
	kinTypes.Store(t, k)
	return k
}

// stampKey sets the Origin.Key of the object in v to the position and name
// of keyNode, and, as kin-openapi does, of what its Value or Schema field
// holds: the object a wrapper holds, and also the schema of a media type
// or a parameter.
func stampKey(v reflect.Value, keyNode *yaml.Node, file string) {
	v = indirect(v)
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return
	}
	k := kinTypeOf(v.Type())
	if k.origin != nil {
		if f := v.FieldByIndex(k.origin); f.CanSet() {
			if f.IsNil() {
				f.Set(reflect.ValueOf(&openapi3.Origin{}))
			}
			f.Interface().(*openapi3.Origin).Key = &openapi3.Location{File: file, Line: keyNode.Line, Column: keyNode.Column, Name: keyNode.Value}
		}
	}
	for _, i := range k.inner {
		stampKey(v.FieldByIndex(i), keyNode, file)
	}
}
