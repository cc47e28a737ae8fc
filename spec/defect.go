package spec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// The rule ids of defects in the OpenAPI document itself.
const (
	// RuleDanglingRef is a $ref that points nowhere.
	RuleDanglingRef = "OAS001"
	// RuleUndeclaredPathParam is a path template parameter without a
	// declaration, or a declared path parameter missing from the template.
	RuleUndeclaredPathParam = "OAS002"
	// RuleInvalidOperation is an operation that kin-openapi's validation
	// rejects, examples and schema defaults aside.
	RuleInvalidOperation = "OAS003"
	// RuleHeaderNotToken is a response header or header parameter whose
	// name is not an HTTP token.
	RuleHeaderNotToken = "OAS004"
)

// danglingPrefix starts the file name that replaces a dangling $ref in the
// bytes handed to kin-openapi; the loader serves an empty schema for it.
const danglingPrefix = "__idemgen_dangling_ref_"

// refPatch replaces the bytes data[start:end] of a file with text.
type refPatch struct {
	start, end int
	text       string
}

// patchDanglingRefs finds every $ref in src that points nowhere, records an
// OAS001 defect for each and, in the bytes kin-openapi will read, replaces
// it with a reference to an empty schema. kin-openapi refuses a whole
// document over one dangling $ref; this way the rest of it still loads.
// Only the rest of the patched line shifts, so positions elsewhere hold.
func (l *loader) patchDanglingRefs(key string, src *source) {
	var patches []refPatch
	walkRefs(src.root, func(ref *yaml.Node) {
		if l.refResolves(src, ref.Value) {
			return
		}
		start := byteOffset(src.data, ref.Line, ref.Column)
		end := scalarEnd(src.data, start, ref)
		if end < 0 {
			return
		}
		name := fmt.Sprintf("%s%d.json", danglingPrefix, len(l.dangling))
		l.dangling = append(l.dangling, Diagnostic{
			Pos:      src.pos(ref),
			Severity: SeverityError,
			Rule:     RuleDanglingRef,
			Path:     "$ref",
			Message:  fmt.Sprintf("$ref %q points nowhere", ref.Value),
			Hint:     "define the target or correct the reference; operations that use it are not generated",
		})
		patches = append(patches, refPatch{start: start, end: end, text: strconv.Quote(name)})
	})
	if len(patches) == 0 {
		return
	}
	data := bytes.Clone(src.data)
	slices.SortFunc(patches, func(a, b refPatch) int { return b.start - a.start })
	for _, p := range patches {
		data = slices.Concat(data[:p.start], []byte(p.text), data[p.end:])
	}
	src.data = data
}

// walkRefs calls fn for the value node of every $ref with a string value
// under n. It does not descend into x- extensions, which kin-openapi does
// not resolve either.
func walkRefs(n *yaml.Node, fn func(ref *yaml.Node)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch {
			case k.Value == "$ref" && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
				fn(v)
			case strings.HasPrefix(k.Value, "x-"):
			default:
				walkRefs(v, fn)
			}
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			walkRefs(c, fn)
		}
	}
}

// refResolves reports whether ref, found in src, names something. A
// reference it cannot judge (a URL, an unparsable one, a file that exists
// but does not parse) counts as resolving: kin-openapi then reports it,
// or the parse error is recorded.
func (l *loader) refResolves(src *source, ref string) bool {
	file, frag, _ := strings.Cut(ref, "#")
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	target := src
	if file != "" {
		u, err := url.Parse(file)
		if err != nil || u.Scheme != "" || u.Host != "" {
			return true
		}
		key := fileKey(src, u.Path)
		if strings.HasPrefix(path.Base(key), danglingPrefix) {
			return true
		}
		t, err := l.source(key)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false
		case err != nil:
			return true
		}
		target = t
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return true
	}
	_, ok := lookupPointer(target.root, frag)
	return ok
}

// scalarEnd returns the byte offset just past the scalar token of n that
// starts at start in data, or -1 when it cannot tell.
func scalarEnd(data []byte, start int, n *yaml.Node) int {
	if start < 0 || start >= len(data) {
		return -1
	}
	switch data[start] {
	case '"':
		for i := start + 1; i < len(data) && data[i] != '\n'; i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '\'':
		for i := start + 1; i < len(data) && data[i] != '\n'; i++ {
			if data[i] != '\'' {
				continue
			}
			if i+1 < len(data) && data[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	default:
		if bytes.HasPrefix(data[start:], []byte(n.Value)) {
			return start + len(n.Value)
		}
	}
	return -1
}

// findDefects checks every operation for defects of the OpenAPI document
// and attaches each to the operations it touches: dangling references
// found while reading, undeclared path parameters, and what kin-openapi's
// per-operation validation rejects (examples and schema defaults are not
// validated: they are no concern of idemgen's). The defects of an
// operation without x-idempotency are warnings.
func (l *loader) findDefects(ctx context.Context, doc *Document) error {
	doc.Defects = append(doc.Defects, l.dangling...)
	v := newOpValidator(doc.OpenAPI)
	for _, op := range doc.Operations {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(l.dangling) > 0 {
			for _, i := range danglingRefsOf(op) {
				op.Blocked = append(op.Blocked, l.dangling[i])
			}
		}
		var found []Diagnostic
		if !op.Webhook {
			found = append(found, pathParamDefects(op)...)
		}
		found = append(found, l.headerDefects(op)...)
		if len(op.Blocked) == 0 {
			if err := v.validate(ctx, op.Op); err != nil {
				found = append(found, Diagnostic{
					Pos:      op.Pos,
					Severity: SeverityError,
					Rule:     RuleInvalidOperation,
					Message:  fmt.Sprintf("%s %s is not a valid operation: %s", op.Method, op.Path, oneLine(err.Error())),
					Hint:     "fix the operation so that it validates as OpenAPI",
				})
			}
		}
		if op.Contract == nil {
			// idemgen generates nothing for an operation without a
			// contract, so its defects block nothing: they are reported,
			// as warnings, and a vendor spec with a flaw in an operation
			// nobody annotated can still be checked and generated.
			for i := range found {
				found[i].Severity = SeverityWarning
			}
		}
		op.Blocked = append(op.Blocked, found...)
		doc.Defects = append(doc.Defects, found...)
	}
	slices.SortStableFunc(doc.Defects, func(a, b Diagnostic) int {
		switch {
		case a.Pos.Before(b.Pos):
			return -1
		case b.Pos.Before(a.Pos):
			return 1
		}
		return strings.Compare(a.Message, b.Message)
	})
	return nil
}

// templateParam matches a parameter in a path template, such as {id}.
var templateParam = regexp.MustCompile(`\{([^{}]+)\}`)

// pathParamDefects compares the parameters of op's path template with the
// path parameters the path item and the operation declare.
func pathParamDefects(op *Operation) []Diagnostic {
	declared := map[string]bool{}
	for _, params := range []openapi3.Parameters{op.PathItem.Parameters, op.Op.Parameters} {
		for _, p := range params {
			if p != nil && p.Value != nil && p.Value.In == openapi3.ParameterInPath {
				declared[p.Value.Name] = true
			}
		}
	}
	inTemplate := map[string]bool{}
	var out []Diagnostic
	for _, m := range templateParam.FindAllStringSubmatch(op.Path, -1) {
		name := m[1]
		inTemplate[name] = true
		if !declared[name] {
			out = append(out, Diagnostic{
				Pos:      op.Pos,
				Severity: SeverityError,
				Rule:     RuleUndeclaredPathParam,
				Message:  fmt.Sprintf("%s %s does not declare its path parameter %q", op.Method, op.Path, name),
				Hint:     fmt.Sprintf("add {name: %s, in: path, required: true, schema: {type: string}} to the parameters", name),
			})
		}
	}
	names := make([]string, 0, len(declared))
	for name := range declared {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !inTemplate[name] {
			out = append(out, Diagnostic{
				Pos:      op.Pos,
				Severity: SeverityError,
				Rule:     RuleUndeclaredPathParam,
				Message:  fmt.Sprintf("%s %s declares path parameter %q, which its path does not have", op.Method, op.Path, name),
				Hint:     "remove the parameter or add {" + name + "} to the path",
			})
		}
	}
	return out
}
